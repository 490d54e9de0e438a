from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Address")


@_attrs_define
class Address:
    """
    Attributes:
        po_box (str | Unset):
        address_lines (list[str] | None | Unset):
        city (str | Unset):
        country_code (str | Unset):
        floor (str | Unset):
        post_code (str | Unset):
        state_region (str | Unset):
        street (str | Unset):
        street_number (str | Unset):
    """

    po_box: str | Unset = UNSET
    address_lines: list[str] | None | Unset = UNSET
    city: str | Unset = UNSET
    country_code: str | Unset = UNSET
    floor: str | Unset = UNSET
    post_code: str | Unset = UNSET
    state_region: str | Unset = UNSET
    street: str | Unset = UNSET
    street_number: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        po_box = self.po_box

        address_lines: list[str] | None | Unset
        if isinstance(self.address_lines, Unset):
            address_lines = UNSET
        elif isinstance(self.address_lines, list):
            address_lines = self.address_lines

        else:
            address_lines = self.address_lines

        city = self.city

        country_code = self.country_code

        floor = self.floor

        post_code = self.post_code

        state_region = self.state_region

        street = self.street

        street_number = self.street_number

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if po_box is not UNSET:
            field_dict["POBox"] = po_box
        if address_lines is not UNSET:
            field_dict["addressLines"] = address_lines
        if city is not UNSET:
            field_dict["city"] = city
        if country_code is not UNSET:
            field_dict["countryCode"] = country_code
        if floor is not UNSET:
            field_dict["floor"] = floor
        if post_code is not UNSET:
            field_dict["postCode"] = post_code
        if state_region is not UNSET:
            field_dict["stateRegion"] = state_region
        if street is not UNSET:
            field_dict["street"] = street
        if street_number is not UNSET:
            field_dict["streetNumber"] = street_number

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        po_box = d.pop("POBox", UNSET)

        def _parse_address_lines(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                address_lines_type_0 = cast(list[str], data)

                return address_lines_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        address_lines = _parse_address_lines(d.pop("addressLines", UNSET))

        city = d.pop("city", UNSET)

        country_code = d.pop("countryCode", UNSET)

        floor = d.pop("floor", UNSET)

        post_code = d.pop("postCode", UNSET)

        state_region = d.pop("stateRegion", UNSET)

        street = d.pop("street", UNSET)

        street_number = d.pop("streetNumber", UNSET)

        address = cls(
            po_box=po_box,
            address_lines=address_lines,
            city=city,
            country_code=country_code,
            floor=floor,
            post_code=post_code,
            state_region=state_region,
            street=street,
            street_number=street_number,
        )

        address.additional_properties = d
        return address

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
