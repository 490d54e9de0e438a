from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.readiness import Readiness


T = TypeVar("T", bound="AttentionContainer")


@_attrs_define
class AttentionContainer:
    """
    Attributes:
        equipment_number (str):
        readiness (Readiness):
    """

    equipment_number: str
    readiness: Readiness
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        equipment_number = self.equipment_number

        readiness = self.readiness.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "equipmentNumber": equipment_number,
                "readiness": readiness,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.readiness import Readiness

        d = dict(src_dict)
        equipment_number = d.pop("equipmentNumber")

        readiness = Readiness.from_dict(d.pop("readiness"))

        attention_container = cls(
            equipment_number=equipment_number,
            readiness=readiness,
        )

        attention_container.additional_properties = d
        return attention_container

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
