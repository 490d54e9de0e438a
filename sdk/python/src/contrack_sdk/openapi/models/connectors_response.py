from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.connector_view import ConnectorView


T = TypeVar("T", bound="ConnectorsResponse")


@_attrs_define
class ConnectorsResponse:
    """ConnectorsResponse schema

    Attributes:
        connectors (list[ConnectorView] | None):
    """

    connectors: list[ConnectorView] | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        connectors: list[dict[str, Any]] | None
        if isinstance(self.connectors, list):
            connectors = []
            for connectors_type_0_item_data in self.connectors:
                connectors_type_0_item = connectors_type_0_item_data.to_dict()
                connectors.append(connectors_type_0_item)

        else:
            connectors = self.connectors

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "connectors": connectors,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.connector_view import ConnectorView

        d = dict(src_dict)

        def _parse_connectors(data: object) -> list[ConnectorView] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                connectors_type_0 = []
                _connectors_type_0 = data
                for connectors_type_0_item_data in _connectors_type_0:
                    connectors_type_0_item = ConnectorView.from_dict(
                        connectors_type_0_item_data
                    )

                    connectors_type_0.append(connectors_type_0_item)

                return connectors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ConnectorView] | None, data)

        connectors = _parse_connectors(d.pop("connectors"))

        connectors_response = cls(
            connectors=connectors,
        )

        connectors_response.additional_properties = d
        return connectors_response

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
