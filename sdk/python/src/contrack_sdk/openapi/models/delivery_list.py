from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.delivery_record import DeliveryRecord


T = TypeVar("T", bound="DeliveryList")


@_attrs_define
class DeliveryList:
    """DeliveryList schema

    Attributes:
        deliveries (list[DeliveryRecord] | None):
        next_token (str | Unset):
    """

    deliveries: list[DeliveryRecord] | None
    next_token: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deliveries: list[dict[str, Any]] | None
        if isinstance(self.deliveries, list):
            deliveries = []
            for deliveries_type_0_item_data in self.deliveries:
                deliveries_type_0_item = deliveries_type_0_item_data.to_dict()
                deliveries.append(deliveries_type_0_item)

        else:
            deliveries = self.deliveries

        next_token = self.next_token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deliveries": deliveries,
            }
        )
        if next_token is not UNSET:
            field_dict["nextToken"] = next_token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.delivery_record import DeliveryRecord

        d = dict(src_dict)

        def _parse_deliveries(data: object) -> list[DeliveryRecord] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                deliveries_type_0 = []
                _deliveries_type_0 = data
                for deliveries_type_0_item_data in _deliveries_type_0:
                    deliveries_type_0_item = DeliveryRecord.from_dict(
                        deliveries_type_0_item_data
                    )

                    deliveries_type_0.append(deliveries_type_0_item)

                return deliveries_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DeliveryRecord] | None, data)

        deliveries = _parse_deliveries(d.pop("deliveries"))

        next_token = d.pop("nextToken", UNSET)

        delivery_list = cls(
            deliveries=deliveries,
            next_token=next_token,
        )

        delivery_list.additional_properties = d
        return delivery_list

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
