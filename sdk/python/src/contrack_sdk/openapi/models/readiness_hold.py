from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReadinessHold")


@_attrs_define
class ReadinessHold:
    """
    Attributes:
        hold_code (str):
        hold_type (str):
        placed_date_time (str):
        released_date_time (str | Unset):
    """

    hold_code: str
    hold_type: str
    placed_date_time: str
    released_date_time: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hold_code = self.hold_code

        hold_type = self.hold_type

        placed_date_time = self.placed_date_time

        released_date_time = self.released_date_time

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "holdCode": hold_code,
                "holdType": hold_type,
                "placedDateTime": placed_date_time,
            }
        )
        if released_date_time is not UNSET:
            field_dict["releasedDateTime"] = released_date_time

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        hold_code = d.pop("holdCode")

        hold_type = d.pop("holdType")

        placed_date_time = d.pop("placedDateTime")

        released_date_time = d.pop("releasedDateTime", UNSET)

        readiness_hold = cls(
            hold_code=hold_code,
            hold_type=hold_type,
            placed_date_time=placed_date_time,
            released_date_time=released_date_time,
        )

        readiness_hold.additional_properties = d
        return readiness_hold

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
