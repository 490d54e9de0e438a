from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.milestone import Milestone
    from ..models.prediction import Prediction
    from ..models.readiness import Readiness
    from ..models.route import Route
    from ..models.vessel import Vessel


T = TypeVar("T", bound="Result")


@_attrs_define
class Result:
    """
    Attributes:
        pod (str):
        pol (str):
        enhanced_events (list[Milestone] | None):
        equipment_number (str):
        last_location (str):
        scac_code (str):
        source_events (list[Any] | None):
        tracking_status (str):
        vessel_events (list[Any] | None):
        arrival_prediction (None | Prediction | Unset):
        readiness (None | Readiness | Unset):
        route (None | Route | Unset):
        vessel (None | Unset | Vessel):
    """

    pod: str
    pol: str
    enhanced_events: list[Milestone] | None
    equipment_number: str
    last_location: str
    scac_code: str
    source_events: list[Any] | None
    tracking_status: str
    vessel_events: list[Any] | None
    arrival_prediction: None | Prediction | Unset = UNSET
    readiness: None | Readiness | Unset = UNSET
    route: None | Route | Unset = UNSET
    vessel: None | Unset | Vessel = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.prediction import Prediction
        from ..models.readiness import Readiness
        from ..models.route import Route
        from ..models.vessel import Vessel

        pod = self.pod

        pol = self.pol

        enhanced_events: list[dict[str, Any]] | None
        if isinstance(self.enhanced_events, list):
            enhanced_events = []
            for enhanced_events_type_0_item_data in self.enhanced_events:
                enhanced_events_type_0_item = enhanced_events_type_0_item_data.to_dict()
                enhanced_events.append(enhanced_events_type_0_item)

        else:
            enhanced_events = self.enhanced_events

        equipment_number = self.equipment_number

        last_location = self.last_location

        scac_code = self.scac_code

        source_events: list[Any] | None
        if isinstance(self.source_events, list):
            source_events = self.source_events

        else:
            source_events = self.source_events

        tracking_status = self.tracking_status

        vessel_events: list[Any] | None
        if isinstance(self.vessel_events, list):
            vessel_events = self.vessel_events

        else:
            vessel_events = self.vessel_events

        arrival_prediction: dict[str, Any] | None | Unset
        if isinstance(self.arrival_prediction, Unset):
            arrival_prediction = UNSET
        elif isinstance(self.arrival_prediction, Prediction):
            arrival_prediction = self.arrival_prediction.to_dict()
        else:
            arrival_prediction = self.arrival_prediction

        readiness: dict[str, Any] | None | Unset
        if isinstance(self.readiness, Unset):
            readiness = UNSET
        elif isinstance(self.readiness, Readiness):
            readiness = self.readiness.to_dict()
        else:
            readiness = self.readiness

        route: dict[str, Any] | None | Unset
        if isinstance(self.route, Unset):
            route = UNSET
        elif isinstance(self.route, Route):
            route = self.route.to_dict()
        else:
            route = self.route

        vessel: dict[str, Any] | None | Unset
        if isinstance(self.vessel, Unset):
            vessel = UNSET
        elif isinstance(self.vessel, Vessel):
            vessel = self.vessel.to_dict()
        else:
            vessel = self.vessel

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "POD": pod,
                "POL": pol,
                "enhancedEvents": enhanced_events,
                "equipmentNumber": equipment_number,
                "lastLocation": last_location,
                "scacCode": scac_code,
                "sourceEvents": source_events,
                "trackingStatus": tracking_status,
                "vesselEvents": vessel_events,
            }
        )
        if arrival_prediction is not UNSET:
            field_dict["arrivalPrediction"] = arrival_prediction
        if readiness is not UNSET:
            field_dict["readiness"] = readiness
        if route is not UNSET:
            field_dict["route"] = route
        if vessel is not UNSET:
            field_dict["vessel"] = vessel

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.milestone import Milestone
        from ..models.prediction import Prediction
        from ..models.readiness import Readiness
        from ..models.route import Route
        from ..models.vessel import Vessel

        d = dict(src_dict)
        pod = d.pop("POD")

        pol = d.pop("POL")

        def _parse_enhanced_events(data: object) -> list[Milestone] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                enhanced_events_type_0 = []
                _enhanced_events_type_0 = data
                for enhanced_events_type_0_item_data in _enhanced_events_type_0:
                    enhanced_events_type_0_item = Milestone.from_dict(
                        enhanced_events_type_0_item_data
                    )

                    enhanced_events_type_0.append(enhanced_events_type_0_item)

                return enhanced_events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Milestone] | None, data)

        enhanced_events = _parse_enhanced_events(d.pop("enhancedEvents"))

        equipment_number = d.pop("equipmentNumber")

        last_location = d.pop("lastLocation")

        scac_code = d.pop("scacCode")

        def _parse_source_events(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                source_events_type_0 = cast(list[Any], data)

                return source_events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        source_events = _parse_source_events(d.pop("sourceEvents"))

        tracking_status = d.pop("trackingStatus")

        def _parse_vessel_events(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                vessel_events_type_0 = cast(list[Any], data)

                return vessel_events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        vessel_events = _parse_vessel_events(d.pop("vesselEvents"))

        def _parse_arrival_prediction(data: object) -> None | Prediction | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arrival_prediction_type_0 = Prediction.from_dict(data)

                return arrival_prediction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Prediction | Unset, data)

        arrival_prediction = _parse_arrival_prediction(
            d.pop("arrivalPrediction", UNSET)
        )

        def _parse_readiness(data: object) -> None | Readiness | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                readiness_type_0 = Readiness.from_dict(data)

                return readiness_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Readiness | Unset, data)

        readiness = _parse_readiness(d.pop("readiness", UNSET))

        def _parse_route(data: object) -> None | Route | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                route_type_0 = Route.from_dict(data)

                return route_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Route | Unset, data)

        route = _parse_route(d.pop("route", UNSET))

        def _parse_vessel(data: object) -> None | Unset | Vessel:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vessel_type_0 = Vessel.from_dict(data)

                return vessel_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | Vessel, data)

        vessel = _parse_vessel(d.pop("vessel", UNSET))

        result = cls(
            pod=pod,
            pol=pol,
            enhanced_events=enhanced_events,
            equipment_number=equipment_number,
            last_location=last_location,
            scac_code=scac_code,
            source_events=source_events,
            tracking_status=tracking_status,
            vessel_events=vessel_events,
            arrival_prediction=arrival_prediction,
            readiness=readiness,
            route=route,
            vessel=vessel,
        )

        result.additional_properties = d
        return result

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
