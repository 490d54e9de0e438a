from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Milestone")


@_attrs_define
class Milestone:
    """
    Attributes:
        un_location_code (str):
        enhanced_event_type (str):
        event_date_time (str):
        previous_event_date_time (str | Unset):
        reload_date_time (str | Unset):
        revised_date_time (str | Unset):
    """

    un_location_code: str
    enhanced_event_type: str
    event_date_time: str
    previous_event_date_time: str | Unset = UNSET
    reload_date_time: str | Unset = UNSET
    revised_date_time: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        un_location_code = self.un_location_code

        enhanced_event_type = self.enhanced_event_type

        event_date_time = self.event_date_time

        previous_event_date_time = self.previous_event_date_time

        reload_date_time = self.reload_date_time

        revised_date_time = self.revised_date_time

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "UNLocationCode": un_location_code,
                "enhancedEventType": enhanced_event_type,
                "eventDateTime": event_date_time,
            }
        )
        if previous_event_date_time is not UNSET:
            field_dict["previousEventDateTime"] = previous_event_date_time
        if reload_date_time is not UNSET:
            field_dict["reloadDateTime"] = reload_date_time
        if revised_date_time is not UNSET:
            field_dict["revisedDateTime"] = revised_date_time

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        un_location_code = d.pop("UNLocationCode")

        enhanced_event_type = d.pop("enhancedEventType")

        event_date_time = d.pop("eventDateTime")

        previous_event_date_time = d.pop("previousEventDateTime", UNSET)

        reload_date_time = d.pop("reloadDateTime", UNSET)

        revised_date_time = d.pop("revisedDateTime", UNSET)

        milestone = cls(
            un_location_code=un_location_code,
            enhanced_event_type=enhanced_event_type,
            event_date_time=event_date_time,
            previous_event_date_time=previous_event_date_time,
            reload_date_time=reload_date_time,
            revised_date_time=revised_date_time,
        )

        milestone.additional_properties = d
        return milestone

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
