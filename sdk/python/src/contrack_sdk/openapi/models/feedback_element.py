from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FeedbackElement")


@_attrs_define
class FeedbackElement:
    """
    Attributes:
        message (str):
        severity (str):
        property_path (str | Unset):
    """

    message: str
    severity: str
    property_path: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        severity = self.severity

        property_path = self.property_path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
                "severity": severity,
            }
        )
        if property_path is not UNSET:
            field_dict["propertyPath"] = property_path

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message = d.pop("message")

        severity = d.pop("severity")

        property_path = d.pop("propertyPath", UNSET)

        feedback_element = cls(
            message=message,
            severity=severity,
            property_path=property_path,
        )

        feedback_element.additional_properties = d
        return feedback_element

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
