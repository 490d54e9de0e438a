from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PortETA")


@_attrs_define
class PortETA:
    """
    Attributes:
        un_location_code (str):
        predicted_date_time (str):
        remaining_nm (float):
        carrier_date_time (str | Unset):
        difference_hours (float | None | Unset):
    """

    un_location_code: str
    predicted_date_time: str
    remaining_nm: float
    carrier_date_time: str | Unset = UNSET
    difference_hours: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        un_location_code = self.un_location_code

        predicted_date_time = self.predicted_date_time

        remaining_nm = self.remaining_nm

        carrier_date_time = self.carrier_date_time

        difference_hours: float | None | Unset
        if isinstance(self.difference_hours, Unset):
            difference_hours = UNSET
        else:
            difference_hours = self.difference_hours

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "UNLocationCode": un_location_code,
                "predictedDateTime": predicted_date_time,
                "remainingNM": remaining_nm,
            }
        )
        if carrier_date_time is not UNSET:
            field_dict["carrierDateTime"] = carrier_date_time
        if difference_hours is not UNSET:
            field_dict["differenceHours"] = difference_hours

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        un_location_code = d.pop("UNLocationCode")

        predicted_date_time = d.pop("predictedDateTime")

        remaining_nm = d.pop("remainingNM")

        carrier_date_time = d.pop("carrierDateTime", UNSET)

        def _parse_difference_hours(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        difference_hours = _parse_difference_hours(d.pop("differenceHours", UNSET))

        port_eta = cls(
            un_location_code=un_location_code,
            predicted_date_time=predicted_date_time,
            remaining_nm=remaining_nm,
            carrier_date_time=carrier_date_time,
            difference_hours=difference_hours,
        )

        port_eta.additional_properties = d
        return port_eta

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
