from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.feed_vessel import FeedVessel


T = TypeVar("T", bound="FeedVesselPosition")


@_attrs_define
class FeedVesselPosition:
    """
    Attributes:
        at (str):
        carrier_voyage_number (str):
        course (float):
        equipment_numbers (list[str] | None):
        latitude (float):
        longitude (float):
        speed_knots (float):
        vessel (FeedVessel):
    """

    at: str
    carrier_voyage_number: str
    course: float
    equipment_numbers: list[str] | None
    latitude: float
    longitude: float
    speed_knots: float
    vessel: FeedVessel
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        carrier_voyage_number = self.carrier_voyage_number

        course = self.course

        equipment_numbers: list[str] | None
        if isinstance(self.equipment_numbers, list):
            equipment_numbers = self.equipment_numbers

        else:
            equipment_numbers = self.equipment_numbers

        latitude = self.latitude

        longitude = self.longitude

        speed_knots = self.speed_knots

        vessel = self.vessel.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "carrierVoyageNumber": carrier_voyage_number,
                "course": course,
                "equipmentNumbers": equipment_numbers,
                "latitude": latitude,
                "longitude": longitude,
                "speedKnots": speed_knots,
                "vessel": vessel,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.feed_vessel import FeedVessel

        d = dict(src_dict)
        at = d.pop("at")

        carrier_voyage_number = d.pop("carrierVoyageNumber")

        course = d.pop("course")

        def _parse_equipment_numbers(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                equipment_numbers_type_0 = cast(list[str], data)

                return equipment_numbers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        equipment_numbers = _parse_equipment_numbers(d.pop("equipmentNumbers"))

        latitude = d.pop("latitude")

        longitude = d.pop("longitude")

        speed_knots = d.pop("speedKnots")

        vessel = FeedVessel.from_dict(d.pop("vessel"))

        feed_vessel_position = cls(
            at=at,
            carrier_voyage_number=carrier_voyage_number,
            course=course,
            equipment_numbers=equipment_numbers,
            latitude=latitude,
            longitude=longitude,
            speed_knots=speed_knots,
            vessel=vessel,
        )

        feed_vessel_position.additional_properties = d
        return feed_vessel_position

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
