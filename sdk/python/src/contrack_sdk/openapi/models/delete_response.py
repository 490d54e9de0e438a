from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="DeleteResponse")


@_attrs_define
class DeleteResponse:
    """DeleteResponse schema

    Attributes:
        date_of_request (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
        message (str):
        subscription_reference (str):
        stopped_tracking (bool | None | Unset):
    """

    date_of_request: datetime.datetime
    message: str
    subscription_reference: str
    stopped_tracking: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        date_of_request = self.date_of_request.isoformat()

        message = self.message

        subscription_reference = self.subscription_reference

        stopped_tracking: bool | None | Unset
        if isinstance(self.stopped_tracking, Unset):
            stopped_tracking = UNSET
        else:
            stopped_tracking = self.stopped_tracking

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dateOfRequest": date_of_request,
                "message": message,
                "subscriptionReference": subscription_reference,
            }
        )
        if stopped_tracking is not UNSET:
            field_dict["stoppedTracking"] = stopped_tracking

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        date_of_request = datetime.datetime.fromisoformat(d.pop("dateOfRequest"))

        message = d.pop("message")

        subscription_reference = d.pop("subscriptionReference")

        def _parse_stopped_tracking(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stopped_tracking = _parse_stopped_tracking(d.pop("stoppedTracking", UNSET))

        delete_response = cls(
            date_of_request=date_of_request,
            message=message,
            subscription_reference=subscription_reference,
            stopped_tracking=stopped_tracking,
        )

        delete_response.additional_properties = d
        return delete_response

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
