from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Seal")


@_attrs_define
class Seal:
    """
    Attributes:
        number (str | Unset):
        placement (str | Unset):
        source (str | Unset):
        type_ (str | Unset):
    """

    number: str | Unset = UNSET
    placement: str | Unset = UNSET
    source: str | Unset = UNSET
    type_: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        number = self.number

        placement = self.placement

        source = self.source

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if number is not UNSET:
            field_dict["number"] = number
        if placement is not UNSET:
            field_dict["placement"] = placement
        if source is not UNSET:
            field_dict["source"] = source
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        number = d.pop("number", UNSET)

        placement = d.pop("placement", UNSET)

        source = d.pop("source", UNSET)

        type_ = d.pop("type", UNSET)

        seal = cls(
            number=number,
            placement=placement,
            source=source,
            type_=type_,
        )

        seal.additional_properties = d
        return seal

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
