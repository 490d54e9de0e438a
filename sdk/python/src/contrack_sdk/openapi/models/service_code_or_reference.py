from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ServiceCodeOrReference")


@_attrs_define
class ServiceCodeOrReference:
    """
    Attributes:
        carrier_service_code (str | Unset):
        universal_service_reference (str | Unset):
    """

    carrier_service_code: str | Unset = UNSET
    universal_service_reference: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        carrier_service_code = self.carrier_service_code

        universal_service_reference = self.universal_service_reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if carrier_service_code is not UNSET:
            field_dict["carrierServiceCode"] = carrier_service_code
        if universal_service_reference is not UNSET:
            field_dict["universalServiceReference"] = universal_service_reference

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        carrier_service_code = d.pop("carrierServiceCode", UNSET)

        universal_service_reference = d.pop("universalServiceReference", UNSET)

        service_code_or_reference = cls(
            carrier_service_code=carrier_service_code,
            universal_service_reference=universal_service_reference,
        )

        service_code_or_reference.additional_properties = d
        return service_code_or_reference

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
