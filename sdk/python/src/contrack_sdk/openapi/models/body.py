from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Body")


@_attrs_define
class Body:
    """Body schema

    Attributes:
        message (str):
        date_of_request (datetime.datetime | Unset): RFC 3339 time in UTC with milliseconds, e.g.
            2026-11-22T20:13:50.870Z
    """

    message: str
    date_of_request: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        date_of_request: str | Unset = UNSET
        if not isinstance(self.date_of_request, Unset):
            date_of_request = self.date_of_request.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
            }
        )
        if date_of_request is not UNSET:
            field_dict["dateOfRequest"] = date_of_request

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message = d.pop("message")

        _date_of_request = d.pop("dateOfRequest", UNSET)
        date_of_request: datetime.datetime | Unset
        if isinstance(_date_of_request, Unset):
            date_of_request = UNSET
        else:
            date_of_request = datetime.datetime.fromisoformat(_date_of_request)

        body = cls(
            message=message,
            date_of_request=date_of_request,
        )

        body.additional_properties = d
        return body

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
