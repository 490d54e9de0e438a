from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FreeTimeRule")


@_attrs_define
class FreeTimeRule:
    """
    Attributes:
        demurrage_days (int):
        detention_days (int):
        port (str):
        scac_code (str):
        currency (str | Unset):
        demurrage_rate (float | None | Unset):
        detention_rate (float | None | Unset):
        exclude_weekends (bool | Unset):
    """

    demurrage_days: int
    detention_days: int
    port: str
    scac_code: str
    currency: str | Unset = UNSET
    demurrage_rate: float | None | Unset = UNSET
    detention_rate: float | None | Unset = UNSET
    exclude_weekends: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        demurrage_days = self.demurrage_days

        detention_days = self.detention_days

        port = self.port

        scac_code = self.scac_code

        currency = self.currency

        demurrage_rate: float | None | Unset
        if isinstance(self.demurrage_rate, Unset):
            demurrage_rate = UNSET
        else:
            demurrage_rate = self.demurrage_rate

        detention_rate: float | None | Unset
        if isinstance(self.detention_rate, Unset):
            detention_rate = UNSET
        else:
            detention_rate = self.detention_rate

        exclude_weekends = self.exclude_weekends

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "demurrageDays": demurrage_days,
                "detentionDays": detention_days,
                "port": port,
                "scacCode": scac_code,
            }
        )
        if currency is not UNSET:
            field_dict["currency"] = currency
        if demurrage_rate is not UNSET:
            field_dict["demurrageRate"] = demurrage_rate
        if detention_rate is not UNSET:
            field_dict["detentionRate"] = detention_rate
        if exclude_weekends is not UNSET:
            field_dict["excludeWeekends"] = exclude_weekends

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        demurrage_days = d.pop("demurrageDays")

        detention_days = d.pop("detentionDays")

        port = d.pop("port")

        scac_code = d.pop("scacCode")

        currency = d.pop("currency", UNSET)

        def _parse_demurrage_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        demurrage_rate = _parse_demurrage_rate(d.pop("demurrageRate", UNSET))

        def _parse_detention_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        detention_rate = _parse_detention_rate(d.pop("detentionRate", UNSET))

        exclude_weekends = d.pop("excludeWeekends", UNSET)

        free_time_rule = cls(
            demurrage_days=demurrage_days,
            detention_days=detention_days,
            port=port,
            scac_code=scac_code,
            currency=currency,
            demurrage_rate=demurrage_rate,
            detention_rate=detention_rate,
            exclude_weekends=exclude_weekends,
        )

        free_time_rule.additional_properties = d
        return free_time_rule

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
