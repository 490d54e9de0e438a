from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeliveryRecord")


@_attrs_define
class DeliveryRecord:
    """
    Attributes:
        attempts (int):
        created_at (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
        event_count (int):
        id (str):
        last_http_code (int | None):
        next_attempt_at (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
        status (str):
        subscription_reference (str):
        last_error (str | Unset):
        test (bool | Unset):
    """

    attempts: int
    created_at: datetime.datetime
    event_count: int
    id: str
    last_http_code: int | None
    next_attempt_at: datetime.datetime
    status: str
    subscription_reference: str
    last_error: str | Unset = UNSET
    test: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        created_at = self.created_at.isoformat()

        event_count = self.event_count

        id = self.id

        last_http_code: int | None
        last_http_code = self.last_http_code

        next_attempt_at = self.next_attempt_at.isoformat()

        status = self.status

        subscription_reference = self.subscription_reference

        last_error = self.last_error

        test = self.test

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "createdAt": created_at,
                "eventCount": event_count,
                "id": id,
                "lastHttpCode": last_http_code,
                "nextAttemptAt": next_attempt_at,
                "status": status,
                "subscriptionReference": subscription_reference,
            }
        )
        if last_error is not UNSET:
            field_dict["lastError"] = last_error
        if test is not UNSET:
            field_dict["test"] = test

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempts = d.pop("attempts")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        event_count = d.pop("eventCount")

        id = d.pop("id")

        def _parse_last_http_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        last_http_code = _parse_last_http_code(d.pop("lastHttpCode"))

        next_attempt_at = datetime.datetime.fromisoformat(d.pop("nextAttemptAt"))

        status = d.pop("status")

        subscription_reference = d.pop("subscriptionReference")

        last_error = d.pop("lastError", UNSET)

        test = d.pop("test", UNSET)

        delivery_record = cls(
            attempts=attempts,
            created_at=created_at,
            event_count=event_count,
            id=id,
            last_http_code=last_http_code,
            next_attempt_at=next_attempt_at,
            status=status,
            subscription_reference=subscription_reference,
            last_error=last_error,
            test=test,
        )

        delivery_record.additional_properties = d
        return delivery_record

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
