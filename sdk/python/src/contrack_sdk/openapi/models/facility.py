from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Facility")


@_attrs_define
class Facility:
    """
    Attributes:
        facility_code (str | Unset):
        facility_code_list_provider (str | Unset):
        facility_name (str | Unset):
    """

    facility_code: str | Unset = UNSET
    facility_code_list_provider: str | Unset = UNSET
    facility_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        facility_code = self.facility_code

        facility_code_list_provider = self.facility_code_list_provider

        facility_name = self.facility_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if facility_code is not UNSET:
            field_dict["facilityCode"] = facility_code
        if facility_code_list_provider is not UNSET:
            field_dict["facilityCodeListProvider"] = facility_code_list_provider
        if facility_name is not UNSET:
            field_dict["facilityName"] = facility_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        facility_code = d.pop("facilityCode", UNSET)

        facility_code_list_provider = d.pop("facilityCodeListProvider", UNSET)

        facility_name = d.pop("facilityName", UNSET)

        facility = cls(
            facility_code=facility_code,
            facility_code_list_provider=facility_code_list_provider,
            facility_name=facility_name,
        )

        facility.additional_properties = d
        return facility

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
