from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RailTransport")


@_attrs_define
class RailTransport:
    """
    Attributes:
        departure_id (str | Unset):
        rail_car_reference (str | Unset):
        rail_service_reference (str | Unset):
    """

    departure_id: str | Unset = UNSET
    rail_car_reference: str | Unset = UNSET
    rail_service_reference: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        departure_id = self.departure_id

        rail_car_reference = self.rail_car_reference

        rail_service_reference = self.rail_service_reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if departure_id is not UNSET:
            field_dict["departureID"] = departure_id
        if rail_car_reference is not UNSET:
            field_dict["railCarReference"] = rail_car_reference
        if rail_service_reference is not UNSET:
            field_dict["railServiceReference"] = rail_service_reference

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        departure_id = d.pop("departureID", UNSET)

        rail_car_reference = d.pop("railCarReference", UNSET)

        rail_service_reference = d.pop("railServiceReference", UNSET)

        rail_transport = cls(
            departure_id=departure_id,
            rail_car_reference=rail_car_reference,
            rail_service_reference=rail_service_reference,
        )

        rail_transport.additional_properties = d
        return rail_transport

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
