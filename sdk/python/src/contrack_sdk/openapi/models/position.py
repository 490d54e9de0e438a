from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Position")


@_attrs_define
class Position:
    """
    Attributes:
        at (str):
        course (float):
        latitude (float):
        longitude (float):
        speed_knots (float):
    """

    at: str
    course: float
    latitude: float
    longitude: float
    speed_knots: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        course = self.course

        latitude = self.latitude

        longitude = self.longitude

        speed_knots = self.speed_knots

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "course": course,
                "latitude": latitude,
                "longitude": longitude,
                "speedKnots": speed_knots,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        at = d.pop("at")

        course = d.pop("course")

        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        speed_knots = d.pop("speedKnots")

        position = cls(
            at=at,
            course=course,
            latitude=latitude,
            longitude=longitude,
            speed_knots=speed_knots,
        )

        position.additional_properties = d
        return position

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
