from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SubscriptionRecord")


@_attrs_define
class SubscriptionRecord:
    """
    Attributes:
        bill_number (str):
        booking_number (str):
        connection_status (str):
        equipment_number (str):
        scac_code (str):
        subscription_creation_date (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g.
            2026-11-22T20:13:50.870Z
        subscription_expiry_date (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g.
            2026-11-22T20:13:50.870Z
        subscription_reference (str):
        subscription_status (str):
        closed_date_time (datetime.datetime | Unset): RFC 3339 time in UTC with milliseconds, e.g.
            2026-11-22T20:13:50.870Z
        closed_reason (str | Unset):
    """

    bill_number: str
    booking_number: str
    connection_status: str
    equipment_number: str
    scac_code: str
    subscription_creation_date: datetime.datetime
    subscription_expiry_date: datetime.datetime
    subscription_reference: str
    subscription_status: str
    closed_date_time: datetime.datetime | Unset = UNSET
    closed_reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bill_number = self.bill_number

        booking_number = self.booking_number

        connection_status = self.connection_status

        equipment_number = self.equipment_number

        scac_code = self.scac_code

        subscription_creation_date = self.subscription_creation_date.isoformat()

        subscription_expiry_date = self.subscription_expiry_date.isoformat()

        subscription_reference = self.subscription_reference

        subscription_status = self.subscription_status

        closed_date_time: str | Unset = UNSET
        if not isinstance(self.closed_date_time, Unset):
            closed_date_time = self.closed_date_time.isoformat()

        closed_reason = self.closed_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "billNumber": bill_number,
                "bookingNumber": booking_number,
                "connectionStatus": connection_status,
                "equipmentNumber": equipment_number,
                "scacCode": scac_code,
                "subscriptionCreationDate": subscription_creation_date,
                "subscriptionExpiryDate": subscription_expiry_date,
                "subscriptionReference": subscription_reference,
                "subscriptionStatus": subscription_status,
            }
        )
        if closed_date_time is not UNSET:
            field_dict["closedDateTime"] = closed_date_time
        if closed_reason is not UNSET:
            field_dict["closedReason"] = closed_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bill_number = d.pop("billNumber")

        booking_number = d.pop("bookingNumber")

        connection_status = d.pop("connectionStatus")

        equipment_number = d.pop("equipmentNumber")

        scac_code = d.pop("scacCode")

        subscription_creation_date = datetime.datetime.fromisoformat(
            d.pop("subscriptionCreationDate")
        )

        subscription_expiry_date = datetime.datetime.fromisoformat(
            d.pop("subscriptionExpiryDate")
        )

        subscription_reference = d.pop("subscriptionReference")

        subscription_status = d.pop("subscriptionStatus")

        _closed_date_time = d.pop("closedDateTime", UNSET)
        closed_date_time: datetime.datetime | Unset
        if isinstance(_closed_date_time, Unset):
            closed_date_time = UNSET
        else:
            closed_date_time = datetime.datetime.fromisoformat(_closed_date_time)

        closed_reason = d.pop("closedReason", UNSET)

        subscription_record = cls(
            bill_number=bill_number,
            booking_number=booking_number,
            connection_status=connection_status,
            equipment_number=equipment_number,
            scac_code=scac_code,
            subscription_creation_date=subscription_creation_date,
            subscription_expiry_date=subscription_expiry_date,
            subscription_reference=subscription_reference,
            subscription_status=subscription_status,
            closed_date_time=closed_date_time,
            closed_reason=closed_reason,
        )

        subscription_record.additional_properties = d
        return subscription_record

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
