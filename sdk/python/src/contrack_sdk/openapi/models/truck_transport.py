from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.vehicle_details import VehicleDetails


T = TypeVar("T", bound="TruckTransport")


@_attrs_define
class TruckTransport:
    """
    Attributes:
        tractor_details (None | Unset | VehicleDetails):
        trailer_details (None | Unset | VehicleDetails):
    """

    tractor_details: None | Unset | VehicleDetails = UNSET
    trailer_details: None | Unset | VehicleDetails = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.vehicle_details import VehicleDetails

        tractor_details: dict[str, Any] | None | Unset
        if isinstance(self.tractor_details, Unset):
            tractor_details = UNSET
        elif isinstance(self.tractor_details, VehicleDetails):
            tractor_details = self.tractor_details.to_dict()
        else:
            tractor_details = self.tractor_details

        trailer_details: dict[str, Any] | None | Unset
        if isinstance(self.trailer_details, Unset):
            trailer_details = UNSET
        elif isinstance(self.trailer_details, VehicleDetails):
            trailer_details = self.trailer_details.to_dict()
        else:
            trailer_details = self.trailer_details

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if tractor_details is not UNSET:
            field_dict["tractorDetails"] = tractor_details
        if trailer_details is not UNSET:
            field_dict["trailerDetails"] = trailer_details

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.vehicle_details import VehicleDetails

        d = dict(src_dict)

        def _parse_tractor_details(data: object) -> None | Unset | VehicleDetails:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tractor_details_type_0 = VehicleDetails.from_dict(data)

                return tractor_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VehicleDetails, data)

        tractor_details = _parse_tractor_details(d.pop("tractorDetails", UNSET))

        def _parse_trailer_details(data: object) -> None | Unset | VehicleDetails:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                trailer_details_type_0 = VehicleDetails.from_dict(data)

                return trailer_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VehicleDetails, data)

        trailer_details = _parse_trailer_details(d.pop("trailerDetails", UNSET))

        truck_transport = cls(
            tractor_details=tractor_details,
            trailer_details=trailer_details,
        )

        truck_transport.additional_properties = d
        return truck_transport

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
