from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VoyageNumberOrReference")


@_attrs_define
class VoyageNumberOrReference:
    """
    Attributes:
        carrier_voyage_number (str | Unset):
        universal_voyage_reference (str | Unset):
    """

    carrier_voyage_number: str | Unset = UNSET
    universal_voyage_reference: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        carrier_voyage_number = self.carrier_voyage_number

        universal_voyage_reference = self.universal_voyage_reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if carrier_voyage_number is not UNSET:
            field_dict["carrierVoyageNumber"] = carrier_voyage_number
        if universal_voyage_reference is not UNSET:
            field_dict["universalVoyageReference"] = universal_voyage_reference

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        carrier_voyage_number = d.pop("carrierVoyageNumber", UNSET)

        universal_voyage_reference = d.pop("universalVoyageReference", UNSET)

        voyage_number_or_reference = cls(
            carrier_voyage_number=carrier_voyage_number,
            universal_voyage_reference=universal_voyage_reference,
        )

        voyage_number_or_reference.additional_properties = d
        return voyage_number_or_reference

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
