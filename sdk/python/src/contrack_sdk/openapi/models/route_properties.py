from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.route_part import RoutePart
    from ..models.route_port import RoutePort


T = TypeVar("T", bound="RouteProperties")


@_attrs_define
class RouteProperties:
    """
    Attributes:
        parts (list[RoutePart] | None):
        ports (list[RoutePort] | None):
        remaining_nm (float):
        sailed_nm (float):
    """

    parts: list[RoutePart] | None
    ports: list[RoutePort] | None
    remaining_nm: float
    sailed_nm: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        parts: list[dict[str, Any]] | None
        if isinstance(self.parts, list):
            parts = []
            for parts_type_0_item_data in self.parts:
                parts_type_0_item = parts_type_0_item_data.to_dict()
                parts.append(parts_type_0_item)

        else:
            parts = self.parts

        ports: list[dict[str, Any]] | None
        if isinstance(self.ports, list):
            ports = []
            for ports_type_0_item_data in self.ports:
                ports_type_0_item = ports_type_0_item_data.to_dict()
                ports.append(ports_type_0_item)

        else:
            ports = self.ports

        remaining_nm = self.remaining_nm

        sailed_nm = self.sailed_nm

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "parts": parts,
                "ports": ports,
                "remainingNM": remaining_nm,
                "sailedNM": sailed_nm,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.route_part import RoutePart
        from ..models.route_port import RoutePort

        d = dict(src_dict)

        def _parse_parts(data: object) -> list[RoutePart] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                parts_type_0 = []
                _parts_type_0 = data
                for parts_type_0_item_data in _parts_type_0:
                    parts_type_0_item = RoutePart.from_dict(parts_type_0_item_data)

                    parts_type_0.append(parts_type_0_item)

                return parts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RoutePart] | None, data)

        parts = _parse_parts(d.pop("parts"))

        def _parse_ports(data: object) -> list[RoutePort] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ports_type_0 = []
                _ports_type_0 = data
                for ports_type_0_item_data in _ports_type_0:
                    ports_type_0_item = RoutePort.from_dict(ports_type_0_item_data)

                    ports_type_0.append(ports_type_0_item)

                return ports_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[RoutePort] | None, data)

        ports = _parse_ports(d.pop("ports"))

        remaining_nm = d.pop("remainingNM")

        sailed_nm = d.pop("sailedNM")

        route_properties = cls(
            parts=parts,
            ports=ports,
            remaining_nm=remaining_nm,
            sailed_nm=sailed_nm,
        )

        route_properties.additional_properties = d
        return route_properties

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
