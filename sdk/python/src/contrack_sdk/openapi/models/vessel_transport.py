from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VesselTransport")


@_attrs_define
class VesselTransport:
    """
    Attributes:
        operator_carrier_code (str | Unset):
        operator_carrier_code_list_provider (str | Unset):
        vessel_call_sign (str | Unset):
        vessel_flag (str | Unset):
        vessel_imo_number (str | Unset):
        vessel_name (str | Unset):
    """

    operator_carrier_code: str | Unset = UNSET
    operator_carrier_code_list_provider: str | Unset = UNSET
    vessel_call_sign: str | Unset = UNSET
    vessel_flag: str | Unset = UNSET
    vessel_imo_number: str | Unset = UNSET
    vessel_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        operator_carrier_code = self.operator_carrier_code

        operator_carrier_code_list_provider = self.operator_carrier_code_list_provider

        vessel_call_sign = self.vessel_call_sign

        vessel_flag = self.vessel_flag

        vessel_imo_number = self.vessel_imo_number

        vessel_name = self.vessel_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if operator_carrier_code is not UNSET:
            field_dict["operatorCarrierCode"] = operator_carrier_code
        if operator_carrier_code_list_provider is not UNSET:
            field_dict["operatorCarrierCodeListProvider"] = (
                operator_carrier_code_list_provider
            )
        if vessel_call_sign is not UNSET:
            field_dict["vesselCallSign"] = vessel_call_sign
        if vessel_flag is not UNSET:
            field_dict["vesselFlag"] = vessel_flag
        if vessel_imo_number is not UNSET:
            field_dict["vesselIMONumber"] = vessel_imo_number
        if vessel_name is not UNSET:
            field_dict["vesselName"] = vessel_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        operator_carrier_code = d.pop("operatorCarrierCode", UNSET)

        operator_carrier_code_list_provider = d.pop(
            "operatorCarrierCodeListProvider", UNSET
        )

        vessel_call_sign = d.pop("vesselCallSign", UNSET)

        vessel_flag = d.pop("vesselFlag", UNSET)

        vessel_imo_number = d.pop("vesselIMONumber", UNSET)

        vessel_name = d.pop("vesselName", UNSET)

        vessel_transport = cls(
            operator_carrier_code=operator_carrier_code,
            operator_carrier_code_list_provider=operator_carrier_code_list_provider,
            vessel_call_sign=vessel_call_sign,
            vessel_flag=vessel_flag,
            vessel_imo_number=vessel_imo_number,
            vessel_name=vessel_name,
        )

        vessel_transport.additional_properties = d
        return vessel_transport

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
