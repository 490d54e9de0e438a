from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.shipment_reference import ShipmentReference


T = TypeVar("T", bound="ShipmentReferenceReplacement")


@_attrs_define
class ShipmentReferenceReplacement:
    """
    Attributes:
        new_references (list[ShipmentReference] | None | Unset):
        old_references (list[ShipmentReference] | None | Unset):
    """

    new_references: list[ShipmentReference] | None | Unset = UNSET
    old_references: list[ShipmentReference] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        new_references: list[dict[str, Any]] | None | Unset
        if isinstance(self.new_references, Unset):
            new_references = UNSET
        elif isinstance(self.new_references, list):
            new_references = []
            for new_references_type_0_item_data in self.new_references:
                new_references_type_0_item = new_references_type_0_item_data.to_dict()
                new_references.append(new_references_type_0_item)

        else:
            new_references = self.new_references

        old_references: list[dict[str, Any]] | None | Unset
        if isinstance(self.old_references, Unset):
            old_references = UNSET
        elif isinstance(self.old_references, list):
            old_references = []
            for old_references_type_0_item_data in self.old_references:
                old_references_type_0_item = old_references_type_0_item_data.to_dict()
                old_references.append(old_references_type_0_item)

        else:
            old_references = self.old_references

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if new_references is not UNSET:
            field_dict["newReferences"] = new_references
        if old_references is not UNSET:
            field_dict["oldReferences"] = old_references

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.shipment_reference import ShipmentReference

        d = dict(src_dict)

        def _parse_new_references(
            data: object,
        ) -> list[ShipmentReference] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                new_references_type_0 = []
                _new_references_type_0 = data
                for new_references_type_0_item_data in _new_references_type_0:
                    new_references_type_0_item = ShipmentReference.from_dict(
                        new_references_type_0_item_data
                    )

                    new_references_type_0.append(new_references_type_0_item)

                return new_references_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShipmentReference] | None | Unset, data)

        new_references = _parse_new_references(d.pop("newReferences", UNSET))

        def _parse_old_references(
            data: object,
        ) -> list[ShipmentReference] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                old_references_type_0 = []
                _old_references_type_0 = data
                for old_references_type_0_item_data in _old_references_type_0:
                    old_references_type_0_item = ShipmentReference.from_dict(
                        old_references_type_0_item_data
                    )

                    old_references_type_0.append(old_references_type_0_item)

                return old_references_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShipmentReference] | None | Unset, data)

        old_references = _parse_old_references(d.pop("oldReferences", UNSET))

        shipment_reference_replacement = cls(
            new_references=new_references,
            old_references=old_references,
        )

        shipment_reference_replacement.additional_properties = d
        return shipment_reference_replacement

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
