from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="References")


@_attrs_define
class References:
    """
    Attributes:
        bill_number (str):
        booking_number (str):
        equipment_number (str):
        scac_code (str):
        subscription_reference (str):
    """

    bill_number: str
    booking_number: str
    equipment_number: str
    scac_code: str
    subscription_reference: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bill_number = self.bill_number

        booking_number = self.booking_number

        equipment_number = self.equipment_number

        scac_code = self.scac_code

        subscription_reference = self.subscription_reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "billNumber": bill_number,
                "bookingNumber": booking_number,
                "equipmentNumber": equipment_number,
                "scacCode": scac_code,
                "subscriptionReference": subscription_reference,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bill_number = d.pop("billNumber")

        booking_number = d.pop("bookingNumber")

        equipment_number = d.pop("equipmentNumber")

        scac_code = d.pop("scacCode")

        subscription_reference = d.pop("subscriptionReference")

        references = cls(
            bill_number=bill_number,
            booking_number=booking_number,
            equipment_number=equipment_number,
            scac_code=scac_code,
            subscription_reference=subscription_reference,
        )

        references.additional_properties = d
        return references

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
