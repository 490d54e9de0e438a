from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VehicleDetails")


@_attrs_define
class VehicleDetails:
    """
    Attributes:
        license_plate (str | Unset):
        vehicle_identification_number (str | Unset):
    """

    license_plate: str | Unset = UNSET
    vehicle_identification_number: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        license_plate = self.license_plate

        vehicle_identification_number = self.vehicle_identification_number

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if license_plate is not UNSET:
            field_dict["licensePlate"] = license_plate
        if vehicle_identification_number is not UNSET:
            field_dict["vehicleIdentificationNumber"] = vehicle_identification_number

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        license_plate = d.pop("licensePlate", UNSET)

        vehicle_identification_number = d.pop("vehicleIdentificationNumber", UNSET)

        vehicle_details = cls(
            license_plate=license_plate,
            vehicle_identification_number=vehicle_identification_number,
        )

        vehicle_details.additional_properties = d
        return vehicle_details

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
