from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Party")


@_attrs_define
class Party:
    """
    Attributes:
        code_list_name (str | Unset):
        code_list_provider (str | Unset):
        party_code (str | Unset):
        party_function (str | Unset):
    """

    code_list_name: str | Unset = UNSET
    code_list_provider: str | Unset = UNSET
    party_code: str | Unset = UNSET
    party_function: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code_list_name = self.code_list_name

        code_list_provider = self.code_list_provider

        party_code = self.party_code

        party_function = self.party_function

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if code_list_name is not UNSET:
            field_dict["codeListName"] = code_list_name
        if code_list_provider is not UNSET:
            field_dict["codeListProvider"] = code_list_provider
        if party_code is not UNSET:
            field_dict["partyCode"] = party_code
        if party_function is not UNSET:
            field_dict["partyFunction"] = party_function

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code_list_name = d.pop("codeListName", UNSET)

        code_list_provider = d.pop("codeListProvider", UNSET)

        party_code = d.pop("partyCode", UNSET)

        party_function = d.pop("partyFunction", UNSET)

        party = cls(
            code_list_name=code_list_name,
            code_list_provider=code_list_provider,
            party_code=party_code,
            party_function=party_function,
        )

        party.additional_properties = d
        return party

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
