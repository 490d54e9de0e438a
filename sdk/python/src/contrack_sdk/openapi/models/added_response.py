from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.feedback_element import FeedbackElement


T = TypeVar("T", bound="AddedResponse")


@_attrs_define
class AddedResponse:
    """AddedResponse schema

    Attributes:
        message (str):
        feedback_elements (list[FeedbackElement] | None | Unset):
    """

    message: str
    feedback_elements: list[FeedbackElement] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        feedback_elements: list[dict[str, Any]] | None | Unset
        if isinstance(self.feedback_elements, Unset):
            feedback_elements = UNSET
        elif isinstance(self.feedback_elements, list):
            feedback_elements = []
            for feedback_elements_type_0_item_data in self.feedback_elements:
                feedback_elements_type_0_item = (
                    feedback_elements_type_0_item_data.to_dict()
                )
                feedback_elements.append(feedback_elements_type_0_item)

        else:
            feedback_elements = self.feedback_elements

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
            }
        )
        if feedback_elements is not UNSET:
            field_dict["feedbackElements"] = feedback_elements

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.feedback_element import FeedbackElement

        d = dict(src_dict)
        message = d.pop("message")

        def _parse_feedback_elements(
            data: object,
        ) -> list[FeedbackElement] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
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
            return cast(list[FeedbackElement] | None | Unset, data)

        feedback_elements = _parse_feedback_elements(d.pop("feedbackElements", UNSET))

        added_response = cls(
            message=message,
            feedback_elements=feedback_elements,
        )

        added_response.additional_properties = d
        return added_response

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
