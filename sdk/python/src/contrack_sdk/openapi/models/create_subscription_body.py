from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateSubscriptionBody")


@_attrs_define
class CreateSubscriptionBody:
    """CreateSubscriptionBody schema

    Attributes:
        subscription_reference (str):
        bill_number (str | Unset):
        booking_number (str | Unset):
        container_number (str | Unset):
        scac_code (str | Unset):
    """

    subscription_reference: str
    bill_number: str | Unset = UNSET
    booking_number: str | Unset = UNSET
    container_number: str | Unset = UNSET
    scac_code: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        subscription_reference = self.subscription_reference

        bill_number = self.bill_number

        booking_number = self.booking_number

        container_number = self.container_number

        scac_code = self.scac_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "subscriptionReference": subscription_reference,
            }
        )
        if bill_number is not UNSET:
            field_dict["billNumber"] = bill_number
        if booking_number is not UNSET:
            field_dict["bookingNumber"] = booking_number
        if container_number is not UNSET:
            field_dict["containerNumber"] = container_number
        if scac_code is not UNSET:
            field_dict["scacCode"] = scac_code

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        subscription_reference = d.pop("subscriptionReference")

        bill_number = d.pop("billNumber", UNSET)

        booking_number = d.pop("bookingNumber", UNSET)

        container_number = d.pop("containerNumber", UNSET)

        scac_code = d.pop("scacCode", UNSET)

        create_subscription_body = cls(
            subscription_reference=subscription_reference,
            bill_number=bill_number,
            booking_number=booking_number,
            container_number=container_number,
            scac_code=scac_code,
        )

        create_subscription_body.additional_properties = d
        return create_subscription_body

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
