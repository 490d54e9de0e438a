from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VesselPositionsBody")


@_attrs_define
class VesselPositionsBody:
    """VesselPositionsBody schema

    Attributes:
        interval_minutes (float | None | Unset):
    """

    interval_minutes: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        interval_minutes: float | None | Unset
        if isinstance(self.interval_minutes, Unset):
            interval_minutes = UNSET
        else:
            interval_minutes = self.interval_minutes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if interval_minutes is not UNSET:
            field_dict["intervalMinutes"] = interval_minutes

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_interval_minutes(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        interval_minutes = _parse_interval_minutes(d.pop("intervalMinutes", UNSET))

        vessel_positions_body = cls(
            interval_minutes=interval_minutes,
        )

        vessel_positions_body.additional_properties = d
        return vessel_positions_body

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
