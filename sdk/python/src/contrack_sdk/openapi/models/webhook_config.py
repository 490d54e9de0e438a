from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.filter_ import Filter
    from ..models.webhook_config_auth_headers_type_0 import (
        WebhookConfigAuthHeadersType0,
    )


T = TypeVar("T", bound="WebhookConfig")


@_attrs_define
class WebhookConfig:
    """WebhookConfig schema

    Attributes:
        activated (bool):
        auth_headers (None | WebhookConfigAuthHeadersType0):
        env (str):
        event_format (str):
        filters (Filter):
        target_url (str):
    """

    activated: bool
    auth_headers: None | WebhookConfigAuthHeadersType0
    env: str
    event_format: str
    filters: Filter
    target_url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.webhook_config_auth_headers_type_0 import (
            WebhookConfigAuthHeadersType0,
        )

        activated = self.activated

        auth_headers: dict[str, Any] | None
        if isinstance(self.auth_headers, WebhookConfigAuthHeadersType0):
            auth_headers = self.auth_headers.to_dict()
        else:
            auth_headers = self.auth_headers

        env = self.env

        event_format = self.event_format

        filters = self.filters.to_dict()

        target_url = self.target_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "activated": activated,
                "authHeaders": auth_headers,
                "env": env,
                "eventFormat": event_format,
                "filters": filters,
                "targetUrl": target_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.filter_ import Filter
        from ..models.webhook_config_auth_headers_type_0 import (
            WebhookConfigAuthHeadersType0,
        )

        d = dict(src_dict)
        activated = d.pop("activated")

        def _parse_auth_headers(data: object) -> None | WebhookConfigAuthHeadersType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auth_headers_type_0 = WebhookConfigAuthHeadersType0.from_dict(data)

                return auth_headers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | WebhookConfigAuthHeadersType0, data)

        auth_headers = _parse_auth_headers(d.pop("authHeaders"))

        env = d.pop("env")

        event_format = d.pop("eventFormat")

        filters = Filter.from_dict(d.pop("filters"))

        target_url = d.pop("targetUrl")

        webhook_config = cls(
            activated=activated,
            auth_headers=auth_headers,
            env=env,
            event_format=event_format,
            filters=filters,
            target_url=target_url,
        )

        webhook_config.additional_properties = d
        return webhook_config

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
