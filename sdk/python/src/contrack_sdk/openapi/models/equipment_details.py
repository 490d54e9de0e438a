from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.seal import Seal


T = TypeVar("T", bound="EquipmentDetails")


@_attrs_define
class EquipmentDetails:
    """
    Attributes:
        iso_equipment_code (str | Unset):
        empty_indicator_code (str | Unset):
        equipment_reference (str | Unset):
        movement_type (str | Unset):
        seals (list[Seal] | None | Unset):
    """

    iso_equipment_code: str | Unset = UNSET
    empty_indicator_code: str | Unset = UNSET
    equipment_reference: str | Unset = UNSET
    movement_type: str | Unset = UNSET
    seals: list[Seal] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        iso_equipment_code = self.iso_equipment_code

        empty_indicator_code = self.empty_indicator_code

        equipment_reference = self.equipment_reference

        movement_type = self.movement_type

        seals: list[dict[str, Any]] | None | Unset
        if isinstance(self.seals, Unset):
            seals = UNSET
        elif isinstance(self.seals, list):
            seals = []
            for seals_type_0_item_data in self.seals:
                seals_type_0_item = seals_type_0_item_data.to_dict()
                seals.append(seals_type_0_item)

        else:
            seals = self.seals

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if iso_equipment_code is not UNSET:
            field_dict["ISOEquipmentCode"] = iso_equipment_code
        if empty_indicator_code is not UNSET:
            field_dict["emptyIndicatorCode"] = empty_indicator_code
        if equipment_reference is not UNSET:
            field_dict["equipmentReference"] = equipment_reference
        if movement_type is not UNSET:
            field_dict["movementType"] = movement_type
        if seals is not UNSET:
            field_dict["seals"] = seals

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.seal import Seal

        d = dict(src_dict)
        iso_equipment_code = d.pop("ISOEquipmentCode", UNSET)

        empty_indicator_code = d.pop("emptyIndicatorCode", UNSET)

        equipment_reference = d.pop("equipmentReference", UNSET)

        movement_type = d.pop("movementType", UNSET)

        def _parse_seals(data: object) -> list[Seal] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                seals_type_0 = []
                _seals_type_0 = data
                for seals_type_0_item_data in _seals_type_0:
                    seals_type_0_item = Seal.from_dict(seals_type_0_item_data)

                    seals_type_0.append(seals_type_0_item)

                return seals_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Seal] | None | Unset, data)

        seals = _parse_seals(d.pop("seals", UNSET))

        equipment_details = cls(
            iso_equipment_code=iso_equipment_code,
            empty_indicator_code=empty_indicator_code,
            equipment_reference=equipment_reference,
            movement_type=movement_type,
            seals=seals,
        )

        equipment_details.additional_properties = d
        return equipment_details

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
