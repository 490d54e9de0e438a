from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.geometry import Geometry
    from ..models.route_properties import RouteProperties


T = TypeVar("T", bound="Route")


@_attrs_define
class Route:
    """
    Attributes:
        geometry (Geometry):
        properties (RouteProperties):
        type_ (str):
    """

    geometry: Geometry
    properties: RouteProperties
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        geometry = self.geometry.to_dict()

        properties = self.properties.to_dict()

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "geometry": geometry,
                "properties": properties,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.geometry import Geometry
        from ..models.route_properties import RouteProperties

        d = dict(src_dict)
        geometry = Geometry.from_dict(d.pop("geometry"))

        properties = RouteProperties.from_dict(d.pop("properties"))

        type_ = d.pop("type")

        route = cls(
            geometry=geometry,
            properties=properties,
            type_=type_,
        )

        route.additional_properties = d
        return route

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
