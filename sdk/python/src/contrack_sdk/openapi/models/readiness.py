from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.estimated_cost import EstimatedCost
    from ..models.free_time_rule import FreeTimeRule
    from ..models.readiness_hold import ReadinessHold


T = TypeVar("T", bound="Readiness")


@_attrs_define
class Readiness:
    """
    Attributes:
        un_location_code (str):
        as_of (str):
        attention (list[str] | None):
        available_for_pickup (bool):
        demurrage_days (int):
        detention_days (int):
        holds (list[ReadinessHold] | None):
        on_hold (bool):
        available_date_time (str | Unset):
        days_to_last_free_day (int | None | Unset):
        detention_last_free_day (str | Unset):
        discharged_date_time (str | Unset):
        empty_returned_date_time (str | Unset):
        estimated_cost (EstimatedCost | None | Unset):
        free_time_rule (FreeTimeRule | None | Unset):
        last_free_day (str | Unset):
        picked_up_date_time (str | Unset):
    """

    un_location_code: str
    as_of: str
    attention: list[str] | None
    available_for_pickup: bool
    demurrage_days: int
    detention_days: int
    holds: list[ReadinessHold] | None
    on_hold: bool
    available_date_time: str | Unset = UNSET
    days_to_last_free_day: int | None | Unset = UNSET
    detention_last_free_day: str | Unset = UNSET
    discharged_date_time: str | Unset = UNSET
    empty_returned_date_time: str | Unset = UNSET
    estimated_cost: EstimatedCost | None | Unset = UNSET
    free_time_rule: FreeTimeRule | None | Unset = UNSET
    last_free_day: str | Unset = UNSET
    picked_up_date_time: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.estimated_cost import EstimatedCost
        from ..models.free_time_rule import FreeTimeRule

        un_location_code = self.un_location_code

        as_of = self.as_of

        attention: list[str] | None
        if isinstance(self.attention, list):
            attention = self.attention

        else:
            attention = self.attention

        available_for_pickup = self.available_for_pickup

        demurrage_days = self.demurrage_days

        detention_days = self.detention_days

        holds: list[dict[str, Any]] | None
        if isinstance(self.holds, list):
            holds = []
            for holds_type_0_item_data in self.holds:
                holds_type_0_item = holds_type_0_item_data.to_dict()
                holds.append(holds_type_0_item)

        else:
            holds = self.holds

        on_hold = self.on_hold

        available_date_time = self.available_date_time

        days_to_last_free_day: int | None | Unset
        if isinstance(self.days_to_last_free_day, Unset):
            days_to_last_free_day = UNSET
        else:
            days_to_last_free_day = self.days_to_last_free_day

        detention_last_free_day = self.detention_last_free_day

        discharged_date_time = self.discharged_date_time

        empty_returned_date_time = self.empty_returned_date_time

        estimated_cost: dict[str, Any] | None | Unset
        if isinstance(self.estimated_cost, Unset):
            estimated_cost = UNSET
        elif isinstance(self.estimated_cost, EstimatedCost):
            estimated_cost = self.estimated_cost.to_dict()
        else:
            estimated_cost = self.estimated_cost

        free_time_rule: dict[str, Any] | None | Unset
        if isinstance(self.free_time_rule, Unset):
            free_time_rule = UNSET
        elif isinstance(self.free_time_rule, FreeTimeRule):
            free_time_rule = self.free_time_rule.to_dict()
        else:
            free_time_rule = self.free_time_rule

        last_free_day = self.last_free_day

        picked_up_date_time = self.picked_up_date_time

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "UNLocationCode": un_location_code,
                "asOf": as_of,
                "attention": attention,
                "availableForPickup": available_for_pickup,
                "demurrageDays": demurrage_days,
                "detentionDays": detention_days,
                "holds": holds,
                "onHold": on_hold,
            }
        )
        if available_date_time is not UNSET:
            field_dict["availableDateTime"] = available_date_time
        if days_to_last_free_day is not UNSET:
            field_dict["daysToLastFreeDay"] = days_to_last_free_day
        if detention_last_free_day is not UNSET:
            field_dict["detentionLastFreeDay"] = detention_last_free_day
        if discharged_date_time is not UNSET:
            field_dict["dischargedDateTime"] = discharged_date_time
        if empty_returned_date_time is not UNSET:
            field_dict["emptyReturnedDateTime"] = empty_returned_date_time
        if estimated_cost is not UNSET:
            field_dict["estimatedCost"] = estimated_cost
        if free_time_rule is not UNSET:
            field_dict["freeTimeRule"] = free_time_rule
        if last_free_day is not UNSET:
            field_dict["lastFreeDay"] = last_free_day
        if picked_up_date_time is not UNSET:
            field_dict["pickedUpDateTime"] = picked_up_date_time

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.estimated_cost import EstimatedCost
        from ..models.free_time_rule import FreeTimeRule
        from ..models.readiness_hold import ReadinessHold

        d = dict(src_dict)
        un_location_code = d.pop("UNLocationCode")

        as_of = d.pop("asOf")

        def _parse_attention(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                attention_type_0 = cast(list[str], data)

                return attention_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        attention = _parse_attention(d.pop("attention"))

        available_for_pickup = d.pop("availableForPickup")

        demurrage_days = d.pop("demurrageDays")

        detention_days = d.pop("detentionDays")

        def _parse_holds(data: object) -> list[ReadinessHold] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                holds_type_0 = []
                _holds_type_0 = data
                for holds_type_0_item_data in _holds_type_0:
                    holds_type_0_item = ReadinessHold.from_dict(holds_type_0_item_data)

                    holds_type_0.append(holds_type_0_item)

                return holds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ReadinessHold] | None, data)

        holds = _parse_holds(d.pop("holds"))

        on_hold = d.pop("onHold")

        available_date_time = d.pop("availableDateTime", UNSET)

        def _parse_days_to_last_free_day(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        days_to_last_free_day = _parse_days_to_last_free_day(
            d.pop("daysToLastFreeDay", UNSET)
        )

        detention_last_free_day = d.pop("detentionLastFreeDay", UNSET)

        discharged_date_time = d.pop("dischargedDateTime", UNSET)

        empty_returned_date_time = d.pop("emptyReturnedDateTime", UNSET)

        def _parse_estimated_cost(data: object) -> EstimatedCost | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimated_cost_type_0 = EstimatedCost.from_dict(data)

                return estimated_cost_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EstimatedCost | None | Unset, data)

        estimated_cost = _parse_estimated_cost(d.pop("estimatedCost", UNSET))

        def _parse_free_time_rule(data: object) -> FreeTimeRule | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                free_time_rule_type_0 = FreeTimeRule.from_dict(data)

                return free_time_rule_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FreeTimeRule | None | Unset, data)

        free_time_rule = _parse_free_time_rule(d.pop("freeTimeRule", UNSET))

        last_free_day = d.pop("lastFreeDay", UNSET)

        picked_up_date_time = d.pop("pickedUpDateTime", UNSET)

        readiness = cls(
            un_location_code=un_location_code,
            as_of=as_of,
            attention=attention,
            available_for_pickup=available_for_pickup,
            demurrage_days=demurrage_days,
            detention_days=detention_days,
            holds=holds,
            on_hold=on_hold,
            available_date_time=available_date_time,
            days_to_last_free_day=days_to_last_free_day,
            detention_last_free_day=detention_last_free_day,
            discharged_date_time=discharged_date_time,
            empty_returned_date_time=empty_returned_date_time,
            estimated_cost=estimated_cost,
            free_time_rule=free_time_rule,
            last_free_day=last_free_day,
            picked_up_date_time=picked_up_date_time,
        )

        readiness.additional_properties = d
        return readiness

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
