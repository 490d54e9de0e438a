from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.connector_auth_body import ConnectorAuthBody


T = TypeVar("T", bound="ConnectorView")


@_attrs_define
class ConnectorView:
    """
    Attributes:
        auth (ConnectorAuthBody):
        base_url (str):
        code (str):
        created_date_time (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
        event_types (list[str] | None):
        format_ (str):
        updated_date_time (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
    """

    auth: ConnectorAuthBody
    base_url: str
    code: str
    created_date_time: datetime.datetime
    event_types: list[str] | None
    format_: str
    updated_date_time: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        auth = self.auth.to_dict()

        base_url = self.base_url

        code = self.code

        created_date_time = self.created_date_time.isoformat()

        event_types: list[str] | None
        if isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        format_ = self.format_

        updated_date_time = self.updated_date_time.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "auth": auth,
                "baseUrl": base_url,
                "code": code,
                "createdDateTime": created_date_time,
                "eventTypes": event_types,
                "format": format_,
                "updatedDateTime": updated_date_time,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.connector_auth_body import ConnectorAuthBody

        d = dict(src_dict)
        auth = ConnectorAuthBody.from_dict(d.pop("auth"))

        base_url = d.pop("baseUrl")

        code = d.pop("code")

        created_date_time = datetime.datetime.fromisoformat(d.pop("createdDateTime"))

        def _parse_event_types(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        event_types = _parse_event_types(d.pop("eventTypes"))

        format_ = d.pop("format")

        updated_date_time = datetime.datetime.fromisoformat(d.pop("updatedDateTime"))

        connector_view = cls(
            auth=auth,
            base_url=base_url,
            code=code,
            created_date_time=created_date_time,
            event_types=event_types,
            format_=format_,
            updated_date_time=updated_date_time,
        )

        connector_view.additional_properties = d
        return connector_view

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
