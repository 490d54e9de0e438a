from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.connector_auth_body import ConnectorAuthBody


T = TypeVar("T", bound="ConnectorBody")


@_attrs_define
class ConnectorBody:
    """ConnectorBody schema

    Attributes:
        auth (ConnectorAuthBody | None):
        base_url (str):
        code (str):
        format_ (str):
        event_types (list[str] | None | Unset):
    """

    auth: ConnectorAuthBody | None
    base_url: str
    code: str
    format_: str
    event_types: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.connector_auth_body import ConnectorAuthBody

        auth: dict[str, Any] | None
        if isinstance(self.auth, ConnectorAuthBody):
            auth = self.auth.to_dict()
        else:
            auth = self.auth

        base_url = self.base_url

        code = self.code

        format_ = self.format_

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "auth": auth,
                "baseUrl": base_url,
                "code": code,
                "format": format_,
            }
        )
        if event_types is not UNSET:
            field_dict["eventTypes"] = event_types

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.connector_auth_body import ConnectorAuthBody

        d = dict(src_dict)

        def _parse_auth(data: object) -> ConnectorAuthBody | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_type_0 = ConnectorAuthBody.from_dict(data)

                return auth_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConnectorAuthBody | None, data)

        auth = _parse_auth(d.pop("auth"))

        base_url = d.pop("baseUrl")

        code = d.pop("code")

        format_ = d.pop("format")

        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("eventTypes", UNSET))

        connector_body = cls(
            auth=auth,
            base_url=base_url,
            code=code,
            format_=format_,
            event_types=event_types,
        )

        connector_body.additional_properties = d
        return connector_body

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
