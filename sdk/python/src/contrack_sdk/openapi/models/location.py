from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.address import Address
    from ..models.facility import Facility
    from ..models.geo_coordinate import GeoCoordinate


T = TypeVar("T", bound="Location")


@_attrs_define
class Location:
    """
    Attributes:
        un_location_code (str | Unset):
        address (Address | None | Unset):
        facility (Facility | None | Unset):
        facility_type_code (str | Unset):
        geo_coordinate (GeoCoordinate | None | Unset):
        location_name (str | Unset):
    """

    un_location_code: str | Unset = UNSET
    address: Address | None | Unset = UNSET
    facility: Facility | None | Unset = UNSET
    facility_type_code: str | Unset = UNSET
    geo_coordinate: GeoCoordinate | None | Unset = UNSET
    location_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.address import Address
        from ..models.facility import Facility
        from ..models.geo_coordinate import GeoCoordinate

        un_location_code = self.un_location_code

        address: dict[str, Any] | None | Unset
        if isinstance(self.address, Unset):
            address = UNSET
        elif isinstance(self.address, Address):
            address = self.address.to_dict()
        else:
            address = self.address

        facility: dict[str, Any] | None | Unset
        if isinstance(self.facility, Unset):
            facility = UNSET
        elif isinstance(self.facility, Facility):
            facility = self.facility.to_dict()
        else:
            facility = self.facility

        facility_type_code = self.facility_type_code

        geo_coordinate: dict[str, Any] | None | Unset
        if isinstance(self.geo_coordinate, Unset):
            geo_coordinate = UNSET
        elif isinstance(self.geo_coordinate, GeoCoordinate):
            geo_coordinate = self.geo_coordinate.to_dict()
        else:
            geo_coordinate = self.geo_coordinate

        location_name = self.location_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if un_location_code is not UNSET:
            field_dict["UNLocationCode"] = un_location_code
        if address is not UNSET:
            field_dict["address"] = address
        if facility is not UNSET:
            field_dict["facility"] = facility
        if facility_type_code is not UNSET:
            field_dict["facilityTypeCode"] = facility_type_code
        if geo_coordinate is not UNSET:
            field_dict["geoCoordinate"] = geo_coordinate
        if location_name is not UNSET:
            field_dict["locationName"] = location_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.address import Address
        from ..models.facility import Facility
        from ..models.geo_coordinate import GeoCoordinate

        d = dict(src_dict)
        un_location_code = d.pop("UNLocationCode", UNSET)

        def _parse_address(data: object) -> Address | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                address_type_0 = Address.from_dict(data)

                return address_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Address | None | Unset, data)

        address = _parse_address(d.pop("address", UNSET))

        def _parse_facility(data: object) -> Facility | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                facility_type_0 = Facility.from_dict(data)

                return facility_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Facility | None | Unset, data)

        facility = _parse_facility(d.pop("facility", UNSET))

        facility_type_code = d.pop("facilityTypeCode", UNSET)

        def _parse_geo_coordinate(data: object) -> GeoCoordinate | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                geo_coordinate_type_0 = GeoCoordinate.from_dict(data)

                return geo_coordinate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GeoCoordinate | None | Unset, data)

        geo_coordinate = _parse_geo_coordinate(d.pop("geoCoordinate", UNSET))

        location_name = d.pop("locationName", UNSET)

        location = cls(
            un_location_code=un_location_code,
            address=address,
            facility=facility,
            facility_type_code=facility_type_code,
            geo_coordinate=geo_coordinate,
            location_name=location_name,
        )

        location.additional_properties = d
        return location

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
