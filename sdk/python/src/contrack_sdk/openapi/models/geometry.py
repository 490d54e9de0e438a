from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Geometry")


@_attrs_define
class Geometry:
    """
    Attributes:
        coordinates (list[list[Any]] | None):
        type_ (str):
    """

    coordinates: list[list[Any]] | None
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        coordinates: list[list[Any]] | None
        if isinstance(self.coordinates, list):
            coordinates = []
            for coordinates_type_0_item_data in self.coordinates:
                coordinates_type_0_item = coordinates_type_0_item_data

                coordinates.append(coordinates_type_0_item)

        else:
            coordinates = self.coordinates

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "coordinates": coordinates,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_coordinates(data: object) -> list[list[Any]] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                coordinates_type_0 = []
                _coordinates_type_0 = data
                for coordinates_type_0_item_data in _coordinates_type_0:
                    coordinates_type_0_item = cast(
                        list[Any], coordinates_type_0_item_data
                    )

                    coordinates_type_0.append(coordinates_type_0_item)

                return coordinates_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[list[Any]] | None, data)

        coordinates = _parse_coordinates(d.pop("coordinates"))

        type_ = d.pop("type")

        geometry = cls(
            coordinates=coordinates,
            type_=type_,
        )

        geometry.additional_properties = d
        return geometry

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
