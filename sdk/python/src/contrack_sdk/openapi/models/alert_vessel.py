from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AlertVessel")


@_attrs_define
class AlertVessel:
    """
    Attributes:
        vessel_imo_number (str | Unset):
        vessel_name (str | Unset):
        voyage (str | Unset):
    """

    vessel_imo_number: str | Unset = UNSET
    vessel_name: str | Unset = UNSET
    voyage: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        vessel_imo_number = self.vessel_imo_number

        vessel_name = self.vessel_name

        voyage = self.voyage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if vessel_imo_number is not UNSET:
            field_dict["vesselIMONumber"] = vessel_imo_number
        if vessel_name is not UNSET:
            field_dict["vesselName"] = vessel_name
        if voyage is not UNSET:
            field_dict["voyage"] = voyage

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        vessel_imo_number = d.pop("vesselIMONumber", UNSET)

        vessel_name = d.pop("vesselName", UNSET)

        voyage = d.pop("voyage", UNSET)

        alert_vessel = cls(
            vessel_imo_number=vessel_imo_number,
            vessel_name=vessel_name,
            voyage=voyage,
        )

        alert_vessel.additional_properties = d
        return alert_vessel

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
