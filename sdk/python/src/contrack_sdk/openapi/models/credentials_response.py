from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.credentials_response_carrier_credentials_type_0 import (
        CredentialsResponseCarrierCredentialsType0,
    )


T = TypeVar("T", bound="CredentialsResponse")


@_attrs_define
class CredentialsResponse:
    """CredentialsResponse schema

    Attributes:
        carrier_credentials (CredentialsResponseCarrierCredentialsType0 | None):
        env (str):
    """

    carrier_credentials: CredentialsResponseCarrierCredentialsType0 | None
    env: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.credentials_response_carrier_credentials_type_0 import (
            CredentialsResponseCarrierCredentialsType0,
        )

        carrier_credentials: dict[str, Any] | None
        if isinstance(
            self.carrier_credentials, CredentialsResponseCarrierCredentialsType0
        ):
            carrier_credentials = self.carrier_credentials.to_dict()
        else:
            carrier_credentials = self.carrier_credentials

        env = self.env

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "carrierCredentials": carrier_credentials,
                "env": env,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.credentials_response_carrier_credentials_type_0 import (
            CredentialsResponseCarrierCredentialsType0,
        )

        d = dict(src_dict)

        def _parse_carrier_credentials(
            data: object,
        ) -> CredentialsResponseCarrierCredentialsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                carrier_credentials_type_0 = (
                    CredentialsResponseCarrierCredentialsType0.from_dict(data)
                )

                return carrier_credentials_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CredentialsResponseCarrierCredentialsType0 | None, data)

        carrier_credentials = _parse_carrier_credentials(d.pop("carrierCredentials"))

        env = d.pop("env")

        credentials_response = cls(
            carrier_credentials=carrier_credentials,
            env=env,
        )

        credentials_response.additional_properties = d
        return credentials_response

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
