from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ConnectorAuthBody")


@_attrs_define
class ConnectorAuthBody:
    """
    Attributes:
        scheme (str):
        api_key (str | Unset):
        client_id (str | Unset):
        client_secret (str | Unset):
        header_name (str | Unset):
        password (str | Unset):
        scope (str | Unset):
        token_url (str | Unset):
        username (str | Unset):
    """

    scheme: str
    api_key: str | Unset = UNSET
    client_id: str | Unset = UNSET
    client_secret: str | Unset = UNSET
    header_name: str | Unset = UNSET
    password: str | Unset = UNSET
    scope: str | Unset = UNSET
    token_url: str | Unset = UNSET
    username: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scheme = self.scheme

        api_key = self.api_key

        client_id = self.client_id

        client_secret = self.client_secret

        header_name = self.header_name

        password = self.password

        scope = self.scope

        token_url = self.token_url

        username = self.username

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scheme": scheme,
            }
        )
        if api_key is not UNSET:
            field_dict["apiKey"] = api_key
        if client_id is not UNSET:
            field_dict["clientId"] = client_id
        if client_secret is not UNSET:
            field_dict["clientSecret"] = client_secret
        if header_name is not UNSET:
            field_dict["headerName"] = header_name
        if password is not UNSET:
            field_dict["password"] = password
        if scope is not UNSET:
            field_dict["scope"] = scope
        if token_url is not UNSET:
            field_dict["tokenUrl"] = token_url
        if username is not UNSET:
            field_dict["username"] = username

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        scheme = d.pop("scheme")

        api_key = d.pop("apiKey", UNSET)

        client_id = d.pop("clientId", UNSET)

        client_secret = d.pop("clientSecret", UNSET)

        header_name = d.pop("headerName", UNSET)

        password = d.pop("password", UNSET)

        scope = d.pop("scope", UNSET)

        token_url = d.pop("tokenUrl", UNSET)

        username = d.pop("username", UNSET)

        connector_auth_body = cls(
            scheme=scheme,
            api_key=api_key,
            client_id=client_id,
            client_secret=client_secret,
            header_name=header_name,
            password=password,
            scope=scope,
            token_url=token_url,
            username=username,
        )

        connector_auth_body.additional_properties = d
        return connector_auth_body

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
