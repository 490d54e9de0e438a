from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Filter")


@_attrs_define
class Filter:
    """
    Attributes:
        alert_types (list[str] | None):
        classifiers (list[str] | None):
        event_types (list[str] | None):
        milestones_only (bool):
    """

    alert_types: list[str] | None
    classifiers: list[str] | None
    event_types: list[str] | None
    milestones_only: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        alert_types: list[str] | None
        if isinstance(self.alert_types, list):
            alert_types = self.alert_types

        else:
            alert_types = self.alert_types

        classifiers: list[str] | None
        if isinstance(self.classifiers, list):
            classifiers = self.classifiers

        else:
            classifiers = self.classifiers

        event_types: list[str] | None
        if isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        milestones_only = self.milestones_only

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alertTypes": alert_types,
                "classifiers": classifiers,
                "eventTypes": event_types,
                "milestonesOnly": milestones_only,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_alert_types(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                alert_types_type_0 = cast(list[str], data)

                return alert_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        alert_types = _parse_alert_types(d.pop("alertTypes"))

        def _parse_classifiers(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                classifiers_type_0 = cast(list[str], data)

                return classifiers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        classifiers = _parse_classifiers(d.pop("classifiers"))

        def _parse_event_types(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        event_types = _parse_event_types(d.pop("eventTypes"))

        milestones_only = d.pop("milestonesOnly")

        filter_ = cls(
            alert_types=alert_types,
            classifiers=classifiers,
            event_types=event_types,
            milestones_only=milestones_only,
        )

        filter_.additional_properties = d
        return filter_

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
