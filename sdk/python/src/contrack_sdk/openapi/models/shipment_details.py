from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.document_reference import DocumentReference
    from ..models.document_reference_replacement import DocumentReferenceReplacement
    from ..models.shipment_reference import ShipmentReference
    from ..models.shipment_reference_replacement import ShipmentReferenceReplacement


T = TypeVar("T", bound="ShipmentDetails")


@_attrs_define
class ShipmentDetails:
    """
    Attributes:
        additional_document_references (list[DocumentReference] | None | Unset):
        document_reference (DocumentReference | None | Unset):
        document_reference_replacements (list[DocumentReferenceReplacement] | None | Unset):
        price_calculation_date (str | Unset):
        reason (str | Unset):
        shipment_location_type (str | Unset):
        shipment_reference_replacements (list[ShipmentReferenceReplacement] | None | Unset):
        shipment_references (list[ShipmentReference] | None | Unset):
    """

    additional_document_references: list[DocumentReference] | None | Unset = UNSET
    document_reference: DocumentReference | None | Unset = UNSET
    document_reference_replacements: (
        list[DocumentReferenceReplacement] | None | Unset
    ) = UNSET
    price_calculation_date: str | Unset = UNSET
    reason: str | Unset = UNSET
    shipment_location_type: str | Unset = UNSET
    shipment_reference_replacements: (
        list[ShipmentReferenceReplacement] | None | Unset
    ) = UNSET
    shipment_references: list[ShipmentReference] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.document_reference import DocumentReference

        additional_document_references: list[dict[str, Any]] | None | Unset
        if isinstance(self.additional_document_references, Unset):
            additional_document_references = UNSET
        elif isinstance(self.additional_document_references, list):
            additional_document_references = []
            for (
                additional_document_references_type_0_item_data
            ) in self.additional_document_references:
                additional_document_references_type_0_item = (
                    additional_document_references_type_0_item_data.to_dict()
                )
                additional_document_references.append(
                    additional_document_references_type_0_item
                )

        else:
            additional_document_references = self.additional_document_references

        document_reference: dict[str, Any] | None | Unset
        if isinstance(self.document_reference, Unset):
            document_reference = UNSET
        elif isinstance(self.document_reference, DocumentReference):
            document_reference = self.document_reference.to_dict()
        else:
            document_reference = self.document_reference

        document_reference_replacements: list[dict[str, Any]] | None | Unset
        if isinstance(self.document_reference_replacements, Unset):
            document_reference_replacements = UNSET
        elif isinstance(self.document_reference_replacements, list):
            document_reference_replacements = []
            for (
                document_reference_replacements_type_0_item_data
            ) in self.document_reference_replacements:
                document_reference_replacements_type_0_item = (
                    document_reference_replacements_type_0_item_data.to_dict()
                )
                document_reference_replacements.append(
                    document_reference_replacements_type_0_item
                )

        else:
            document_reference_replacements = self.document_reference_replacements

        price_calculation_date = self.price_calculation_date

        reason = self.reason

        shipment_location_type = self.shipment_location_type

        shipment_reference_replacements: list[dict[str, Any]] | None | Unset
        if isinstance(self.shipment_reference_replacements, Unset):
            shipment_reference_replacements = UNSET
        elif isinstance(self.shipment_reference_replacements, list):
            shipment_reference_replacements = []
            for (
                shipment_reference_replacements_type_0_item_data
            ) in self.shipment_reference_replacements:
                shipment_reference_replacements_type_0_item = (
                    shipment_reference_replacements_type_0_item_data.to_dict()
                )
                shipment_reference_replacements.append(
                    shipment_reference_replacements_type_0_item
                )

        else:
            shipment_reference_replacements = self.shipment_reference_replacements

        shipment_references: list[dict[str, Any]] | None | Unset
        if isinstance(self.shipment_references, Unset):
            shipment_references = UNSET
        elif isinstance(self.shipment_references, list):
            shipment_references = []
            for shipment_references_type_0_item_data in self.shipment_references:
                shipment_references_type_0_item = (
                    shipment_references_type_0_item_data.to_dict()
                )
                shipment_references.append(shipment_references_type_0_item)

        else:
            shipment_references = self.shipment_references

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if additional_document_references is not UNSET:
            field_dict["additionalDocumentReferences"] = additional_document_references
        if document_reference is not UNSET:
            field_dict["documentReference"] = document_reference
        if document_reference_replacements is not UNSET:
            field_dict["documentReferenceReplacements"] = (
                document_reference_replacements
            )
        if price_calculation_date is not UNSET:
            field_dict["priceCalculationDate"] = price_calculation_date
        if reason is not UNSET:
            field_dict["reason"] = reason
        if shipment_location_type is not UNSET:
            field_dict["shipmentLocationType"] = shipment_location_type
        if shipment_reference_replacements is not UNSET:
            field_dict["shipmentReferenceReplacements"] = (
                shipment_reference_replacements
            )
        if shipment_references is not UNSET:
            field_dict["shipmentReferences"] = shipment_references

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.document_reference import DocumentReference
        from ..models.document_reference_replacement import DocumentReferenceReplacement
        from ..models.shipment_reference import ShipmentReference
        from ..models.shipment_reference_replacement import ShipmentReferenceReplacement

        d = dict(src_dict)

        def _parse_additional_document_references(
            data: object,
        ) -> list[DocumentReference] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                additional_document_references_type_0 = []
                _additional_document_references_type_0 = data
                for (
                    additional_document_references_type_0_item_data
                ) in _additional_document_references_type_0:
                    additional_document_references_type_0_item = (
                        DocumentReference.from_dict(
                            additional_document_references_type_0_item_data
                        )
                    )

                    additional_document_references_type_0.append(
                        additional_document_references_type_0_item
                    )

                return additional_document_references_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DocumentReference] | None | Unset, data)

        additional_document_references = _parse_additional_document_references(
            d.pop("additionalDocumentReferences", UNSET)
        )

        def _parse_document_reference(data: object) -> DocumentReference | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                document_reference_type_0 = DocumentReference.from_dict(data)

                return document_reference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DocumentReference | None | Unset, data)

        document_reference = _parse_document_reference(
            d.pop("documentReference", UNSET)
        )

        def _parse_document_reference_replacements(
            data: object,
        ) -> list[DocumentReferenceReplacement] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                document_reference_replacements_type_0 = []
                _document_reference_replacements_type_0 = data
                for (
                    document_reference_replacements_type_0_item_data
                ) in _document_reference_replacements_type_0:
                    document_reference_replacements_type_0_item = (
                        DocumentReferenceReplacement.from_dict(
                            document_reference_replacements_type_0_item_data
                        )
                    )

                    document_reference_replacements_type_0.append(
                        document_reference_replacements_type_0_item
                    )

                return document_reference_replacements_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DocumentReferenceReplacement] | None | Unset, data)

        document_reference_replacements = _parse_document_reference_replacements(
            d.pop("documentReferenceReplacements", UNSET)
        )

        price_calculation_date = d.pop("priceCalculationDate", UNSET)

        reason = d.pop("reason", UNSET)

        shipment_location_type = d.pop("shipmentLocationType", UNSET)

        def _parse_shipment_reference_replacements(
            data: object,
        ) -> list[ShipmentReferenceReplacement] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                shipment_reference_replacements_type_0 = []
                _shipment_reference_replacements_type_0 = data
                for (
                    shipment_reference_replacements_type_0_item_data
                ) in _shipment_reference_replacements_type_0:
                    shipment_reference_replacements_type_0_item = (
                        ShipmentReferenceReplacement.from_dict(
                            shipment_reference_replacements_type_0_item_data
                        )
                    )

                    shipment_reference_replacements_type_0.append(
                        shipment_reference_replacements_type_0_item
                    )

                return shipment_reference_replacements_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShipmentReferenceReplacement] | None | Unset, data)

        shipment_reference_replacements = _parse_shipment_reference_replacements(
            d.pop("shipmentReferenceReplacements", UNSET)
        )

        def _parse_shipment_references(
            data: object,
        ) -> list[ShipmentReference] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                shipment_references_type_0 = []
                _shipment_references_type_0 = data
                for shipment_references_type_0_item_data in _shipment_references_type_0:
                    shipment_references_type_0_item = ShipmentReference.from_dict(
                        shipment_references_type_0_item_data
                    )

                    shipment_references_type_0.append(shipment_references_type_0_item)

                return shipment_references_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShipmentReference] | None | Unset, data)

        shipment_references = _parse_shipment_references(
            d.pop("shipmentReferences", UNSET)
        )

        shipment_details = cls(
            additional_document_references=additional_document_references,
            document_reference=document_reference,
            document_reference_replacements=document_reference_replacements,
            price_calculation_date=price_calculation_date,
            reason=reason,
            shipment_location_type=shipment_location_type,
            shipment_reference_replacements=shipment_reference_replacements,
            shipment_references=shipment_references,
        )

        shipment_details.additional_properties = d
        return shipment_details

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
