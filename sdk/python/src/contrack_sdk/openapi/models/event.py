from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.equipment_details import EquipmentDetails
    from ..models.event_classification import EventClassification
    from ..models.event_routing import EventRouting
    from ..models.iot_details import IotDetails
    from ..models.location import Location
    from ..models.reefer_details import ReeferDetails
    from ..models.shipment_details import ShipmentDetails
    from ..models.transport_details import TransportDetails


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """
    Attributes:
        equipment_details (EquipmentDetails | None | Unset):
        event_classification (EventClassification | None | Unset):
        event_date_time (str | Unset):
        event_id (str | Unset):
        event_location (Location | None | Unset):
        event_routing (EventRouting | None | Unset):
        event_updated_date_time (str | Unset):
        iot_details (IotDetails | None | Unset):
        is_retracted (bool | Unset):
        reefer_details (None | ReeferDetails | Unset):
        shipment_details (None | ShipmentDetails | Unset):
        transport_details (None | TransportDetails | Unset):
    """

    equipment_details: EquipmentDetails | None | Unset = UNSET
    event_classification: EventClassification | None | Unset = UNSET
    event_date_time: str | Unset = UNSET
    event_id: str | Unset = UNSET
    event_location: Location | None | Unset = UNSET
    event_routing: EventRouting | None | Unset = UNSET
    event_updated_date_time: str | Unset = UNSET
    iot_details: IotDetails | None | Unset = UNSET
    is_retracted: bool | Unset = UNSET
    reefer_details: None | ReeferDetails | Unset = UNSET
    shipment_details: None | ShipmentDetails | Unset = UNSET
    transport_details: None | TransportDetails | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.equipment_details import EquipmentDetails
        from ..models.event_classification import EventClassification
        from ..models.event_routing import EventRouting
        from ..models.iot_details import IotDetails
        from ..models.location import Location
        from ..models.reefer_details import ReeferDetails
        from ..models.shipment_details import ShipmentDetails
        from ..models.transport_details import TransportDetails

        equipment_details: dict[str, Any] | None | Unset
        if isinstance(self.equipment_details, Unset):
            equipment_details = UNSET
        elif isinstance(self.equipment_details, EquipmentDetails):
            equipment_details = self.equipment_details.to_dict()
        else:
            equipment_details = self.equipment_details

        event_classification: dict[str, Any] | None | Unset
        if isinstance(self.event_classification, Unset):
            event_classification = UNSET
        elif isinstance(self.event_classification, EventClassification):
            event_classification = self.event_classification.to_dict()
        else:
            event_classification = self.event_classification

        event_date_time = self.event_date_time

        event_id = self.event_id

        event_location: dict[str, Any] | None | Unset
        if isinstance(self.event_location, Unset):
            event_location = UNSET
        elif isinstance(self.event_location, Location):
            event_location = self.event_location.to_dict()
        else:
            event_location = self.event_location

        event_routing: dict[str, Any] | None | Unset
        if isinstance(self.event_routing, Unset):
            event_routing = UNSET
        elif isinstance(self.event_routing, EventRouting):
            event_routing = self.event_routing.to_dict()
        else:
            event_routing = self.event_routing

        event_updated_date_time = self.event_updated_date_time

        iot_details: dict[str, Any] | None | Unset
        if isinstance(self.iot_details, Unset):
            iot_details = UNSET
        elif isinstance(self.iot_details, IotDetails):
            iot_details = self.iot_details.to_dict()
        else:
            iot_details = self.iot_details

        is_retracted = self.is_retracted

        reefer_details: dict[str, Any] | None | Unset
        if isinstance(self.reefer_details, Unset):
            reefer_details = UNSET
        elif isinstance(self.reefer_details, ReeferDetails):
            reefer_details = self.reefer_details.to_dict()
        else:
            reefer_details = self.reefer_details

        shipment_details: dict[str, Any] | None | Unset
        if isinstance(self.shipment_details, Unset):
            shipment_details = UNSET
        elif isinstance(self.shipment_details, ShipmentDetails):
            shipment_details = self.shipment_details.to_dict()
        else:
            shipment_details = self.shipment_details

        transport_details: dict[str, Any] | None | Unset
        if isinstance(self.transport_details, Unset):
            transport_details = UNSET
        elif isinstance(self.transport_details, TransportDetails):
            transport_details = self.transport_details.to_dict()
        else:
            transport_details = self.transport_details

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if equipment_details is not UNSET:
            field_dict["equipmentDetails"] = equipment_details
        if event_classification is not UNSET:
            field_dict["eventClassification"] = event_classification
        if event_date_time is not UNSET:
            field_dict["eventDateTime"] = event_date_time
        if event_id is not UNSET:
            field_dict["eventID"] = event_id
        if event_location is not UNSET:
            field_dict["eventLocation"] = event_location
        if event_routing is not UNSET:
            field_dict["eventRouting"] = event_routing
        if event_updated_date_time is not UNSET:
            field_dict["eventUpdatedDateTime"] = event_updated_date_time
        if iot_details is not UNSET:
            field_dict["iotDetails"] = iot_details
        if is_retracted is not UNSET:
            field_dict["isRetracted"] = is_retracted
        if reefer_details is not UNSET:
            field_dict["reeferDetails"] = reefer_details
        if shipment_details is not UNSET:
            field_dict["shipmentDetails"] = shipment_details
        if transport_details is not UNSET:
            field_dict["transportDetails"] = transport_details

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.equipment_details import EquipmentDetails
        from ..models.event_classification import EventClassification
        from ..models.event_routing import EventRouting
        from ..models.iot_details import IotDetails
        from ..models.location import Location
        from ..models.reefer_details import ReeferDetails
        from ..models.shipment_details import ShipmentDetails
        from ..models.transport_details import TransportDetails

        d = dict(src_dict)

        def _parse_equipment_details(data: object) -> EquipmentDetails | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                equipment_details_type_0 = EquipmentDetails.from_dict(data)

                return equipment_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EquipmentDetails | None | Unset, data)

        equipment_details = _parse_equipment_details(d.pop("equipmentDetails", UNSET))

        def _parse_event_classification(
            data: object,
        ) -> EventClassification | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                event_classification_type_0 = EventClassification.from_dict(data)

                return event_classification_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventClassification | None | Unset, data)

        event_classification = _parse_event_classification(
            d.pop("eventClassification", UNSET)
        )

        event_date_time = d.pop("eventDateTime", UNSET)

        event_id = d.pop("eventID", UNSET)

        def _parse_event_location(data: object) -> Location | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                event_location_type_0 = Location.from_dict(data)

                return event_location_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Location | None | Unset, data)

        event_location = _parse_event_location(d.pop("eventLocation", UNSET))

        def _parse_event_routing(data: object) -> EventRouting | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                event_routing_type_0 = EventRouting.from_dict(data)

                return event_routing_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EventRouting | None | Unset, data)

        event_routing = _parse_event_routing(d.pop("eventRouting", UNSET))

        event_updated_date_time = d.pop("eventUpdatedDateTime", UNSET)

        def _parse_iot_details(data: object) -> IotDetails | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                iot_details_type_0 = IotDetails.from_dict(data)

                return iot_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(IotDetails | None | Unset, data)

        iot_details = _parse_iot_details(d.pop("iotDetails", UNSET))

        is_retracted = d.pop("isRetracted", UNSET)

        def _parse_reefer_details(data: object) -> None | ReeferDetails | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reefer_details_type_0 = ReeferDetails.from_dict(data)

                return reefer_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReeferDetails | Unset, data)

        reefer_details = _parse_reefer_details(d.pop("reeferDetails", UNSET))

        def _parse_shipment_details(data: object) -> None | ShipmentDetails | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                shipment_details_type_0 = ShipmentDetails.from_dict(data)

                return shipment_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ShipmentDetails | Unset, data)

        shipment_details = _parse_shipment_details(d.pop("shipmentDetails", UNSET))

        def _parse_transport_details(data: object) -> None | TransportDetails | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                transport_details_type_0 = TransportDetails.from_dict(data)

                return transport_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TransportDetails | Unset, data)

        transport_details = _parse_transport_details(d.pop("transportDetails", UNSET))

        event = cls(
            equipment_details=equipment_details,
            event_classification=event_classification,
            event_date_time=event_date_time,
            event_id=event_id,
            event_location=event_location,
            event_routing=event_routing,
            event_updated_date_time=event_updated_date_time,
            iot_details=iot_details,
            is_retracted=is_retracted,
            reefer_details=reefer_details,
            shipment_details=shipment_details,
            transport_details=transport_details,
        )

        event.additional_properties = d
        return event

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
