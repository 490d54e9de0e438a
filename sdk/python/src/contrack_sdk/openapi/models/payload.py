from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.feed_vessel_position import FeedVesselPosition
    from ..models.references import References


T = TypeVar("T", bound="Payload")


@_attrs_define
class Payload:
    """
    Attributes:
        events (list[Any] | None):
        references (References):
        alerts (list[Any] | None | Unset):
        retracted_event_i_ds (list[str] | None | Unset):
        type_ (str | Unset):
        vessel_position (FeedVesselPosition | None | Unset):
    """

    events: list[Any] | None
    references: References
    alerts: list[Any] | None | Unset = UNSET
    retracted_event_i_ds: list[str] | None | Unset = UNSET
    type_: str | Unset = UNSET
    vessel_position: FeedVesselPosition | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.feed_vessel_position import FeedVesselPosition

        events: list[Any] | None
        if isinstance(self.events, list):
            events = self.events

        else:
            events = self.events

        references = self.references.to_dict()

        alerts: list[Any] | None | Unset
        if isinstance(self.alerts, Unset):
            alerts = UNSET
        elif isinstance(self.alerts, list):
            alerts = self.alerts

        else:
            alerts = self.alerts

        retracted_event_i_ds: list[str] | None | Unset
        if isinstance(self.retracted_event_i_ds, Unset):
            retracted_event_i_ds = UNSET
        elif isinstance(self.retracted_event_i_ds, list):
            retracted_event_i_ds = self.retracted_event_i_ds

        else:
            retracted_event_i_ds = self.retracted_event_i_ds

        type_ = self.type_

        vessel_position: dict[str, Any] | None | Unset
        if isinstance(self.vessel_position, Unset):
            vessel_position = UNSET
        elif isinstance(self.vessel_position, FeedVesselPosition):
            vessel_position = self.vessel_position.to_dict()
        else:
            vessel_position = self.vessel_position

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "events": events,
                "references": references,
            }
        )
        if alerts is not UNSET:
            field_dict["alerts"] = alerts
        if retracted_event_i_ds is not UNSET:
            field_dict["retractedEventIDs"] = retracted_event_i_ds
        if type_ is not UNSET:
            field_dict["type"] = type_
        if vessel_position is not UNSET:
            field_dict["vesselPosition"] = vessel_position

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.feed_vessel_position import FeedVesselPosition
        from ..models.references import References

        d = dict(src_dict)

        def _parse_events(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                events_type_0 = cast(list[Any], data)

                return events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        events = _parse_events(d.pop("events"))

        references = References.from_dict(d.pop("references"))

        def _parse_alerts(data: object) -> list[Any] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                alerts_type_0 = cast(list[Any], data)

                return alerts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | Unset, data)

        alerts = _parse_alerts(d.pop("alerts", UNSET))

        def _parse_retracted_event_i_ds(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                retracted_event_i_ds_type_0 = cast(list[str], data)

                return retracted_event_i_ds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        retracted_event_i_ds = _parse_retracted_event_i_ds(
            d.pop("retractedEventIDs", UNSET)
        )

        type_ = d.pop("type", UNSET)

        def _parse_vessel_position(data: object) -> FeedVesselPosition | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vessel_position_type_0 = FeedVesselPosition.from_dict(data)

                return vessel_position_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FeedVesselPosition | None | Unset, data)

        vessel_position = _parse_vessel_position(d.pop("vesselPosition", UNSET))

        payload = cls(
            events=events,
            references=references,
            alerts=alerts,
            retracted_event_i_ds=retracted_event_i_ds,
            type_=type_,
            vessel_position=vessel_position,
        )

        payload.additional_properties = d
        return payload

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
