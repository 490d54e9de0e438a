from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AccountAlertSettings")


@_attrs_define
class AccountAlertSettings:
    """AccountAlertSettings schema

    Attributes:
        eta_change_threshold_hours (float | None):
        lfd_warning_days (int):
    """

    eta_change_threshold_hours: float | None
    lfd_warning_days: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        eta_change_threshold_hours: float | None
        eta_change_threshold_hours = self.eta_change_threshold_hours

        lfd_warning_days = self.lfd_warning_days

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "etaChangeThresholdHours": eta_change_threshold_hours,
                "lfdWarningDays": lfd_warning_days,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_eta_change_threshold_hours(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        eta_change_threshold_hours = _parse_eta_change_threshold_hours(
            d.pop("etaChangeThresholdHours")
        )

        lfd_warning_days = d.pop("lfdWarningDays")

        account_alert_settings = cls(
            eta_change_threshold_hours=eta_change_threshold_hours,
            lfd_warning_days=lfd_warning_days,
        )

        account_alert_settings.additional_properties = d
        return account_alert_settings

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
