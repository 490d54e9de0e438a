from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.configure_webhook_body_auth_headers_type_0 import (
        ConfigureWebhookBodyAuthHeadersType0,
    )
    from ..models.filter_ import Filter


T = TypeVar("T", bound="ConfigureWebhookBody")


@_attrs_define
class ConfigureWebhookBody:
    """ConfigureWebhookBody schema

    Attributes:
        target_url (str):
        auth_headers (ConfigureWebhookBodyAuthHeadersType0 | None | Unset):
        event_format (str | Unset):
        filters (Filter | None | Unset):
    """

    target_url: str
    auth_headers: ConfigureWebhookBodyAuthHeadersType0 | None | Unset = UNSET
    event_format: str | Unset = UNSET
    filters: Filter | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.configure_webhook_body_auth_headers_type_0 import (
            ConfigureWebhookBodyAuthHeadersType0,
        )
        from ..models.filter_ import Filter

        target_url = self.target_url

        auth_headers: dict[str, Any] | None | Unset
        if isinstance(self.auth_headers, Unset):
            auth_headers = UNSET
        elif isinstance(self.auth_headers, ConfigureWebhookBodyAuthHeadersType0):
            auth_headers = self.auth_headers.to_dict()
        else:
            auth_headers = self.auth_headers

        event_format = self.event_format

        filters: dict[str, Any] | None | Unset
        if isinstance(self.filters, Unset):
            filters = UNSET
        elif isinstance(self.filters, Filter):
            filters = self.filters.to_dict()
        else:
            filters = self.filters

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "targetUrl": target_url,
            }
        )
        if auth_headers is not UNSET:
            field_dict["authHeaders"] = auth_headers
        if event_format is not UNSET:
            field_dict["eventFormat"] = event_format
        if filters is not UNSET:
            field_dict["filters"] = filters

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.configure_webhook_body_auth_headers_type_0 import (
            ConfigureWebhookBodyAuthHeadersType0,
        )
        from ..models.filter_ import Filter

        d = dict(src_dict)
        target_url = d.pop("targetUrl")

        def _parse_auth_headers(
            data: object,
        ) -> ConfigureWebhookBodyAuthHeadersType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_headers_type_0 = ConfigureWebhookBodyAuthHeadersType0.from_dict(
                    data
                )

                return auth_headers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfigureWebhookBodyAuthHeadersType0 | None | Unset, data)

        auth_headers = _parse_auth_headers(d.pop("authHeaders", UNSET))

        event_format = d.pop("eventFormat", UNSET)

        def _parse_filters(data: object) -> Filter | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                filters_type_0 = Filter.from_dict(data)

                return filters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Filter | None | Unset, data)

        filters = _parse_filters(d.pop("filters", UNSET))

        configure_webhook_body = cls(
            target_url=target_url,
            auth_headers=auth_headers,
            event_format=event_format,
            filters=filters,
        )

        configure_webhook_body.additional_properties = d
        return configure_webhook_body

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
