from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ConnectorFetchBody")


@_attrs_define
class ConnectorFetchBody:
    """ConnectorFetchBody schema

    Attributes:
        carrier_booking_reference (str | Unset):
        cursor (str | Unset):
        equipment_reference (str | Unset):
        event_types (list[str] | None | Unset):
        event_updated_date_time_max (str | Unset):
        event_updated_date_time_min (str | Unset):
        limit (int | Unset):
        max_pages (int | Unset):
        transport_document_reference (str | Unset):
    """

    carrier_booking_reference: str | Unset = UNSET
    cursor: str | Unset = UNSET
    equipment_reference: str | Unset = UNSET
    event_types: list[str] | None | Unset = UNSET
    event_updated_date_time_max: str | Unset = UNSET
    event_updated_date_time_min: str | Unset = UNSET
    limit: int | Unset = UNSET
    max_pages: int | Unset = UNSET
    transport_document_reference: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        carrier_booking_reference = self.carrier_booking_reference

        cursor = self.cursor

        equipment_reference = self.equipment_reference

        event_types: list[str] | None | Unset
        if isinstance(self.event_types, Unset):
            event_types = UNSET
        elif isinstance(self.event_types, list):
            event_types = self.event_types

        else:
            event_types = self.event_types

        event_updated_date_time_max = self.event_updated_date_time_max

        event_updated_date_time_min = self.event_updated_date_time_min

        limit = self.limit

        max_pages = self.max_pages

        transport_document_reference = self.transport_document_reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if carrier_booking_reference is not UNSET:
            field_dict["carrierBookingReference"] = carrier_booking_reference
        if cursor is not UNSET:
            field_dict["cursor"] = cursor
        if equipment_reference is not UNSET:
            field_dict["equipmentReference"] = equipment_reference
        if event_types is not UNSET:
            field_dict["eventTypes"] = event_types
        if event_updated_date_time_max is not UNSET:
            field_dict["eventUpdatedDateTimeMax"] = event_updated_date_time_max
        if event_updated_date_time_min is not UNSET:
            field_dict["eventUpdatedDateTimeMin"] = event_updated_date_time_min
        if limit is not UNSET:
            field_dict["limit"] = limit
        if max_pages is not UNSET:
            field_dict["maxPages"] = max_pages
        if transport_document_reference is not UNSET:
            field_dict["transportDocumentReference"] = transport_document_reference

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        carrier_booking_reference = d.pop("carrierBookingReference", UNSET)

        cursor = d.pop("cursor", UNSET)

        equipment_reference = d.pop("equipmentReference", UNSET)

        def _parse_event_types(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                event_types_type_0 = cast(list[str], data)

                return event_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        event_types = _parse_event_types(d.pop("eventTypes", UNSET))

        event_updated_date_time_max = d.pop("eventUpdatedDateTimeMax", UNSET)

        event_updated_date_time_min = d.pop("eventUpdatedDateTimeMin", UNSET)

        limit = d.pop("limit", UNSET)

        max_pages = d.pop("maxPages", UNSET)

        transport_document_reference = d.pop("transportDocumentReference", UNSET)

        connector_fetch_body = cls(
            carrier_booking_reference=carrier_booking_reference,
            cursor=cursor,
            equipment_reference=equipment_reference,
            event_types=event_types,
            event_updated_date_time_max=event_updated_date_time_max,
            event_updated_date_time_min=event_updated_date_time_min,
            limit=limit,
            max_pages=max_pages,
            transport_document_reference=transport_document_reference,
        )

        connector_fetch_body.additional_properties = d
        return connector_fetch_body

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
