from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.feedback_element import FeedbackElement


T = TypeVar("T", bound="V3Error")


@_attrs_define
class V3Error:
    """V3Error schema

    Attributes:
        feedback_elements (list[FeedbackElement] | None):
        message (str):
    """

    feedback_elements: list[FeedbackElement] | None
    message: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        feedback_elements: list[dict[str, Any]] | None
        if isinstance(self.feedback_elements, list):
            feedback_elements = []
            for feedback_elements_type_0_item_data in self.feedback_elements:
                feedback_elements_type_0_item = (
                    feedback_elements_type_0_item_data.to_dict()
                )
                feedback_elements.append(feedback_elements_type_0_item)

        else:
            feedback_elements = self.feedback_elements

        message = self.message

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "feedbackElements": feedback_elements,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.feedback_element import FeedbackElement

        d = dict(src_dict)

        def _parse_feedback_elements(data: object) -> list[FeedbackElement] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                feedback_elements_type_0 = []
                _feedback_elements_type_0 = data
                for feedback_elements_type_0_item_data in _feedback_elements_type_0:
                    feedback_elements_type_0_item = FeedbackElement.from_dict(
                        feedback_elements_type_0_item_data
                    )

                    feedback_elements_type_0.append(feedback_elements_type_0_item)

                return feedback_elements_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FeedbackElement] | None, data)

        feedback_elements = _parse_feedback_elements(d.pop("feedbackElements"))

        message = d.pop("message")

        v3_error = cls(
            feedback_elements=feedback_elements,
            message=message,
        )

        v3_error.additional_properties = d
        return v3_error

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
