from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.carrier_metrics import CarrierMetrics


T = TypeVar("T", bound="MetricsResponse")


@_attrs_define
class MetricsResponse:
    """MetricsResponse schema

    Attributes:
        carriers (list[CarrierMetrics] | None):
        window (int):
    """

    carriers: list[CarrierMetrics] | None
    window: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        carriers: list[dict[str, Any]] | None
        if isinstance(self.carriers, list):
            carriers = []
            for carriers_type_0_item_data in self.carriers:
                carriers_type_0_item = carriers_type_0_item_data.to_dict()
                carriers.append(carriers_type_0_item)

        else:
            carriers = self.carriers

        window = self.window

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "carriers": carriers,
                "window": window,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.carrier_metrics import CarrierMetrics

        d = dict(src_dict)

        def _parse_carriers(data: object) -> list[CarrierMetrics] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                carriers_type_0 = []
                _carriers_type_0 = data
                for carriers_type_0_item_data in _carriers_type_0:
                    carriers_type_0_item = CarrierMetrics.from_dict(
                        carriers_type_0_item_data
                    )

                    carriers_type_0.append(carriers_type_0_item)

                return carriers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CarrierMetrics] | None, data)

        carriers = _parse_carriers(d.pop("carriers"))

        window = d.pop("window")

        metrics_response = cls(
            carriers=carriers,
            window=window,
        )

        metrics_response.additional_properties = d
        return metrics_response

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
