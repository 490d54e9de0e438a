from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EventClassification")


@_attrs_define
class EventClassification:
    """
    Attributes:
        equipment_event_type_code (str | Unset):
        event_classifier_code (str | Unset):
        event_type_code (str | Unset):
        iot_event_type_code (str | Unset):
        reefer_event_type_code (str | Unset):
        shipment_event_type_code (str | Unset):
        transport_event_type_code (str | Unset):
    """

    equipment_event_type_code: str | Unset = UNSET
    event_classifier_code: str | Unset = UNSET
    event_type_code: str | Unset = UNSET
    iot_event_type_code: str | Unset = UNSET
    reefer_event_type_code: str | Unset = UNSET
    shipment_event_type_code: str | Unset = UNSET
    transport_event_type_code: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        equipment_event_type_code = self.equipment_event_type_code

        event_classifier_code = self.event_classifier_code

        event_type_code = self.event_type_code

        iot_event_type_code = self.iot_event_type_code

        reefer_event_type_code = self.reefer_event_type_code

        shipment_event_type_code = self.shipment_event_type_code

        transport_event_type_code = self.transport_event_type_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if equipment_event_type_code is not UNSET:
            field_dict["equipmentEventTypeCode"] = equipment_event_type_code
        if event_classifier_code is not UNSET:
            field_dict["eventClassifierCode"] = event_classifier_code
        if event_type_code is not UNSET:
            field_dict["eventTypeCode"] = event_type_code
        if iot_event_type_code is not UNSET:
            field_dict["iotEventTypeCode"] = iot_event_type_code
        if reefer_event_type_code is not UNSET:
            field_dict["reeferEventTypeCode"] = reefer_event_type_code
        if shipment_event_type_code is not UNSET:
            field_dict["shipmentEventTypeCode"] = shipment_event_type_code
        if transport_event_type_code is not UNSET:
            field_dict["transportEventTypeCode"] = transport_event_type_code

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        equipment_event_type_code = d.pop("equipmentEventTypeCode", UNSET)

        event_classifier_code = d.pop("eventClassifierCode", UNSET)

        event_type_code = d.pop("eventTypeCode", UNSET)

        iot_event_type_code = d.pop("iotEventTypeCode", UNSET)

        reefer_event_type_code = d.pop("reeferEventTypeCode", UNSET)

        shipment_event_type_code = d.pop("shipmentEventTypeCode", UNSET)

        transport_event_type_code = d.pop("transportEventTypeCode", UNSET)

        event_classification = cls(
            equipment_event_type_code=equipment_event_type_code,
            event_classifier_code=event_classifier_code,
            event_type_code=event_type_code,
            iot_event_type_code=iot_event_type_code,
            reefer_event_type_code=reefer_event_type_code,
            shipment_event_type_code=shipment_event_type_code,
            transport_event_type_code=transport_event_type_code,
        )

        event_classification.additional_properties = d
        return event_classification

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
