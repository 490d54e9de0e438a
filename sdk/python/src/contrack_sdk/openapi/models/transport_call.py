from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rail_transport import RailTransport
    from ..models.service_code_or_reference import ServiceCodeOrReference
    from ..models.truck_transport import TruckTransport
    from ..models.vessel_transport import VesselTransport
    from ..models.voyage_number_or_reference import VoyageNumberOrReference


T = TypeVar("T", bound="TransportCall")


@_attrs_define
class TransportCall:
    """
    Attributes:
        export_voyage_number_or_reference (None | Unset | VoyageNumberOrReference):
        import_voyage_number_or_reference (None | Unset | VoyageNumberOrReference):
        mode_of_transport (str | Unset):
        port_visit_reference (str | Unset):
        rail_transport (None | RailTransport | Unset):
        service_code_or_reference (None | ServiceCodeOrReference | Unset):
        transport_call_reference (str | Unset):
        transport_call_sequence_number (int | None | Unset):
        truck_transport (None | TruckTransport | Unset):
        vessel_transport (None | Unset | VesselTransport):
    """

    export_voyage_number_or_reference: None | Unset | VoyageNumberOrReference = UNSET
    import_voyage_number_or_reference: None | Unset | VoyageNumberOrReference = UNSET
    mode_of_transport: str | Unset = UNSET
    port_visit_reference: str | Unset = UNSET
    rail_transport: None | RailTransport | Unset = UNSET
    service_code_or_reference: None | ServiceCodeOrReference | Unset = UNSET
    transport_call_reference: str | Unset = UNSET
    transport_call_sequence_number: int | None | Unset = UNSET
    truck_transport: None | TruckTransport | Unset = UNSET
    vessel_transport: None | Unset | VesselTransport = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.rail_transport import RailTransport
        from ..models.service_code_or_reference import ServiceCodeOrReference
        from ..models.truck_transport import TruckTransport
        from ..models.vessel_transport import VesselTransport
        from ..models.voyage_number_or_reference import VoyageNumberOrReference

        export_voyage_number_or_reference: dict[str, Any] | None | Unset
        if isinstance(self.export_voyage_number_or_reference, Unset):
            export_voyage_number_or_reference = UNSET
        elif isinstance(
            self.export_voyage_number_or_reference, VoyageNumberOrReference
        ):
            export_voyage_number_or_reference = (
                self.export_voyage_number_or_reference.to_dict()
            )
        else:
            export_voyage_number_or_reference = self.export_voyage_number_or_reference

        import_voyage_number_or_reference: dict[str, Any] | None | Unset
        if isinstance(self.import_voyage_number_or_reference, Unset):
            import_voyage_number_or_reference = UNSET
        elif isinstance(
            self.import_voyage_number_or_reference, VoyageNumberOrReference
        ):
            import_voyage_number_or_reference = (
                self.import_voyage_number_or_reference.to_dict()
            )
        else:
            import_voyage_number_or_reference = self.import_voyage_number_or_reference

        mode_of_transport = self.mode_of_transport

        port_visit_reference = self.port_visit_reference

        rail_transport: dict[str, Any] | None | Unset
        if isinstance(self.rail_transport, Unset):
            rail_transport = UNSET
        elif isinstance(self.rail_transport, RailTransport):
            rail_transport = self.rail_transport.to_dict()
        else:
            rail_transport = self.rail_transport

        service_code_or_reference: dict[str, Any] | None | Unset
        if isinstance(self.service_code_or_reference, Unset):
            service_code_or_reference = UNSET
        elif isinstance(self.service_code_or_reference, ServiceCodeOrReference):
            service_code_or_reference = self.service_code_or_reference.to_dict()
        else:
            service_code_or_reference = self.service_code_or_reference

        transport_call_reference = self.transport_call_reference

        transport_call_sequence_number: int | None | Unset
        if isinstance(self.transport_call_sequence_number, Unset):
            transport_call_sequence_number = UNSET
        else:
            transport_call_sequence_number = self.transport_call_sequence_number

        truck_transport: dict[str, Any] | None | Unset
        if isinstance(self.truck_transport, Unset):
            truck_transport = UNSET
        elif isinstance(self.truck_transport, TruckTransport):
            truck_transport = self.truck_transport.to_dict()
        else:
            truck_transport = self.truck_transport

        vessel_transport: dict[str, Any] | None | Unset
        if isinstance(self.vessel_transport, Unset):
            vessel_transport = UNSET
        elif isinstance(self.vessel_transport, VesselTransport):
            vessel_transport = self.vessel_transport.to_dict()
        else:
            vessel_transport = self.vessel_transport

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if export_voyage_number_or_reference is not UNSET:
            field_dict["exportVoyageNumberOrReference"] = (
                export_voyage_number_or_reference
            )
        if import_voyage_number_or_reference is not UNSET:
            field_dict["importVoyageNumberOrReference"] = (
                import_voyage_number_or_reference
            )
        if mode_of_transport is not UNSET:
            field_dict["modeOfTransport"] = mode_of_transport
        if port_visit_reference is not UNSET:
            field_dict["portVisitReference"] = port_visit_reference
        if rail_transport is not UNSET:
            field_dict["railTransport"] = rail_transport
        if service_code_or_reference is not UNSET:
            field_dict["serviceCodeOrReference"] = service_code_or_reference
        if transport_call_reference is not UNSET:
            field_dict["transportCallReference"] = transport_call_reference
        if transport_call_sequence_number is not UNSET:
            field_dict["transportCallSequenceNumber"] = transport_call_sequence_number
        if truck_transport is not UNSET:
            field_dict["truckTransport"] = truck_transport
        if vessel_transport is not UNSET:
            field_dict["vesselTransport"] = vessel_transport

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.rail_transport import RailTransport
        from ..models.service_code_or_reference import ServiceCodeOrReference
        from ..models.truck_transport import TruckTransport
        from ..models.vessel_transport import VesselTransport
        from ..models.voyage_number_or_reference import VoyageNumberOrReference

        d = dict(src_dict)

        def _parse_export_voyage_number_or_reference(
            data: object,
        ) -> None | Unset | VoyageNumberOrReference:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                export_voyage_number_or_reference_type_0 = (
                    VoyageNumberOrReference.from_dict(data)
                )

                return export_voyage_number_or_reference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VoyageNumberOrReference, data)

        export_voyage_number_or_reference = _parse_export_voyage_number_or_reference(
            d.pop("exportVoyageNumberOrReference", UNSET)
        )

        def _parse_import_voyage_number_or_reference(
            data: object,
        ) -> None | Unset | VoyageNumberOrReference:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                import_voyage_number_or_reference_type_0 = (
                    VoyageNumberOrReference.from_dict(data)
                )

                return import_voyage_number_or_reference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VoyageNumberOrReference, data)

        import_voyage_number_or_reference = _parse_import_voyage_number_or_reference(
            d.pop("importVoyageNumberOrReference", UNSET)
        )

        mode_of_transport = d.pop("modeOfTransport", UNSET)

        port_visit_reference = d.pop("portVisitReference", UNSET)

        def _parse_rail_transport(data: object) -> None | RailTransport | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rail_transport_type_0 = RailTransport.from_dict(data)

                return rail_transport_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RailTransport | Unset, data)

        rail_transport = _parse_rail_transport(d.pop("railTransport", UNSET))

        def _parse_service_code_or_reference(
            data: object,
        ) -> None | ServiceCodeOrReference | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                service_code_or_reference_type_0 = ServiceCodeOrReference.from_dict(
                    data
                )

                return service_code_or_reference_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServiceCodeOrReference | Unset, data)

        service_code_or_reference = _parse_service_code_or_reference(
            d.pop("serviceCodeOrReference", UNSET)
        )

        transport_call_reference = d.pop("transportCallReference", UNSET)

        def _parse_transport_call_sequence_number(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        transport_call_sequence_number = _parse_transport_call_sequence_number(
            d.pop("transportCallSequenceNumber", UNSET)
        )

        def _parse_truck_transport(data: object) -> None | TruckTransport | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                truck_transport_type_0 = TruckTransport.from_dict(data)

                return truck_transport_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TruckTransport | Unset, data)

        truck_transport = _parse_truck_transport(d.pop("truckTransport", UNSET))

        def _parse_vessel_transport(data: object) -> None | Unset | VesselTransport:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                vessel_transport_type_0 = VesselTransport.from_dict(data)

                return vessel_transport_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VesselTransport, data)

        vessel_transport = _parse_vessel_transport(d.pop("vesselTransport", UNSET))

        transport_call = cls(
            export_voyage_number_or_reference=export_voyage_number_or_reference,
            import_voyage_number_or_reference=import_voyage_number_or_reference,
            mode_of_transport=mode_of_transport,
            port_visit_reference=port_visit_reference,
            rail_transport=rail_transport,
            service_code_or_reference=service_code_or_reference,
            transport_call_reference=transport_call_reference,
            transport_call_sequence_number=transport_call_sequence_number,
            truck_transport=truck_transport,
            vessel_transport=vessel_transport,
        )

        transport_call.additional_properties = d
        return transport_call

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
