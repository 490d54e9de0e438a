from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.alert_vessel import AlertVessel


T = TypeVar("T", bound="Alert")


@_attrs_define
class Alert:
    """
    Attributes:
        alert_date_time (str):
        alert_id (str):
        alert_type (str):
        equipment_reference (str):
        un_location_code (str | Unset):
        change_minutes (int | None | Unset):
        days_left (int | None | Unset):
        hold_code (str | Unset):
        hold_type (str | Unset):
        last_free_day (str | Unset):
        new_date_time (str | Unset):
        new_vessel (AlertVessel | None | Unset):
        previous_date_time (str | Unset):
        previous_vessel (AlertVessel | None | Unset):
        source_event_i_ds (list[str] | None | Unset):
    """

    alert_date_time: str
    alert_id: str
    alert_type: str
    equipment_reference: str
    un_location_code: str | Unset = UNSET
    change_minutes: int | None | Unset = UNSET
    days_left: int | None | Unset = UNSET
    hold_code: str | Unset = UNSET
    hold_type: str | Unset = UNSET
    last_free_day: str | Unset = UNSET
    new_date_time: str | Unset = UNSET
    new_vessel: AlertVessel | None | Unset = UNSET
    previous_date_time: str | Unset = UNSET
    previous_vessel: AlertVessel | None | Unset = UNSET
    source_event_i_ds: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.alert_vessel import AlertVessel

        alert_date_time = self.alert_date_time

        alert_id = self.alert_id

        alert_type = self.alert_type

        equipment_reference = self.equipment_reference

        un_location_code = self.un_location_code

        change_minutes: int | None | Unset
        if isinstance(self.change_minutes, Unset):
            change_minutes = UNSET
        else:
            change_minutes = self.change_minutes

        days_left: int | None | Unset
        if isinstance(self.days_left, Unset):
            days_left = UNSET
        else:
            days_left = self.days_left

        hold_code = self.hold_code

        hold_type = self.hold_type

        last_free_day = self.last_free_day

        new_date_time = self.new_date_time

        new_vessel: dict[str, Any] | None | Unset
        if isinstance(self.new_vessel, Unset):
            new_vessel = UNSET
        elif isinstance(self.new_vessel, AlertVessel):
            new_vessel = self.new_vessel.to_dict()
        else:
            new_vessel = self.new_vessel

        previous_date_time = self.previous_date_time

        previous_vessel: dict[str, Any] | None | Unset
        if isinstance(self.previous_vessel, Unset):
            previous_vessel = UNSET
        elif isinstance(self.previous_vessel, AlertVessel):
            previous_vessel = self.previous_vessel.to_dict()
        else:
            previous_vessel = self.previous_vessel

        source_event_i_ds: list[str] | None | Unset
        if isinstance(self.source_event_i_ds, Unset):
            source_event_i_ds = UNSET
        elif isinstance(self.source_event_i_ds, list):
            source_event_i_ds = self.source_event_i_ds

        else:
            source_event_i_ds = self.source_event_i_ds

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alertDateTime": alert_date_time,
                "alertID": alert_id,
                "alertType": alert_type,
                "equipmentReference": equipment_reference,
            }
        )
        if un_location_code is not UNSET:
            field_dict["UNLocationCode"] = un_location_code
        if change_minutes is not UNSET:
            field_dict["changeMinutes"] = change_minutes
        if days_left is not UNSET:
            field_dict["daysLeft"] = days_left
        if hold_code is not UNSET:
            field_dict["holdCode"] = hold_code
        if hold_type is not UNSET:
            field_dict["holdType"] = hold_type
        if last_free_day is not UNSET:
            field_dict["lastFreeDay"] = last_free_day
        if new_date_time is not UNSET:
            field_dict["newDateTime"] = new_date_time
        if new_vessel is not UNSET:
            field_dict["newVessel"] = new_vessel
        if previous_date_time is not UNSET:
            field_dict["previousDateTime"] = previous_date_time
        if previous_vessel is not UNSET:
            field_dict["previousVessel"] = previous_vessel
        if source_event_i_ds is not UNSET:
            field_dict["sourceEventIDs"] = source_event_i_ds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.alert_vessel import AlertVessel

        d = dict(src_dict)
        alert_date_time = d.pop("alertDateTime")

        alert_id = d.pop("alertID")

        alert_type = d.pop("alertType")

        equipment_reference = d.pop("equipmentReference")

        un_location_code = d.pop("UNLocationCode", UNSET)

        def _parse_change_minutes(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        change_minutes = _parse_change_minutes(d.pop("changeMinutes", UNSET))

        def _parse_days_left(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        days_left = _parse_days_left(d.pop("daysLeft", UNSET))

        hold_code = d.pop("holdCode", UNSET)

        hold_type = d.pop("holdType", UNSET)

        last_free_day = d.pop("lastFreeDay", UNSET)

        new_date_time = d.pop("newDateTime", UNSET)

        def _parse_new_vessel(data: object) -> AlertVessel | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                new_vessel_type_0 = AlertVessel.from_dict(data)

                return new_vessel_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AlertVessel | None | Unset, data)

        new_vessel = _parse_new_vessel(d.pop("newVessel", UNSET))

        previous_date_time = d.pop("previousDateTime", UNSET)

        def _parse_previous_vessel(data: object) -> AlertVessel | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                previous_vessel_type_0 = AlertVessel.from_dict(data)

                return previous_vessel_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AlertVessel | None | Unset, data)

        previous_vessel = _parse_previous_vessel(d.pop("previousVessel", UNSET))

        def _parse_source_event_i_ds(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                source_event_i_ds_type_0 = cast(list[str], data)

                return source_event_i_ds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        source_event_i_ds = _parse_source_event_i_ds(d.pop("sourceEventIDs", UNSET))

        alert = cls(
            alert_date_time=alert_date_time,
            alert_id=alert_id,
            alert_type=alert_type,
            equipment_reference=equipment_reference,
            un_location_code=un_location_code,
            change_minutes=change_minutes,
            days_left=days_left,
            hold_code=hold_code,
            hold_type=hold_type,
            last_free_day=last_free_day,
            new_date_time=new_date_time,
            new_vessel=new_vessel,
            previous_date_time=previous_date_time,
            previous_vessel=previous_vessel,
            source_event_i_ds=source_event_i_ds,
        )

        alert.additional_properties = d
        return alert

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
