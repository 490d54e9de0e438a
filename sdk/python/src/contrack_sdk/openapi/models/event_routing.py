from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.party import Party


T = TypeVar("T", bound="EventRouting")


@_attrs_define
class EventRouting:
    """
    Attributes:
        destination_party (None | Party | Unset):
        forwarding_parties (list[Party] | None | Unset):
        originating_party (None | Party | Unset):
    """

    destination_party: None | Party | Unset = UNSET
    forwarding_parties: list[Party] | None | Unset = UNSET
    originating_party: None | Party | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.party import Party

        destination_party: dict[str, Any] | None | Unset
        if isinstance(self.destination_party, Unset):
            destination_party = UNSET
        elif isinstance(self.destination_party, Party):
            destination_party = self.destination_party.to_dict()
        else:
            destination_party = self.destination_party

        forwarding_parties: list[dict[str, Any]] | None | Unset
        if isinstance(self.forwarding_parties, Unset):
            forwarding_parties = UNSET
        elif isinstance(self.forwarding_parties, list):
            forwarding_parties = []
            for forwarding_parties_type_0_item_data in self.forwarding_parties:
                forwarding_parties_type_0_item = (
                    forwarding_parties_type_0_item_data.to_dict()
                )
                forwarding_parties.append(forwarding_parties_type_0_item)

        else:
            forwarding_parties = self.forwarding_parties

        originating_party: dict[str, Any] | None | Unset
        if isinstance(self.originating_party, Unset):
            originating_party = UNSET
        elif isinstance(self.originating_party, Party):
            originating_party = self.originating_party.to_dict()
        else:
            originating_party = self.originating_party

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if destination_party is not UNSET:
            field_dict["destinationParty"] = destination_party
        if forwarding_parties is not UNSET:
            field_dict["forwardingParties"] = forwarding_parties
        if originating_party is not UNSET:
            field_dict["originatingParty"] = originating_party

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.party import Party

        d = dict(src_dict)

        def _parse_destination_party(data: object) -> None | Party | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                destination_party_type_0 = Party.from_dict(data)

                return destination_party_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Party | Unset, data)

        destination_party = _parse_destination_party(d.pop("destinationParty", UNSET))

        def _parse_forwarding_parties(data: object) -> list[Party] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                forwarding_parties_type_0 = []
                _forwarding_parties_type_0 = data
                for forwarding_parties_type_0_item_data in _forwarding_parties_type_0:
                    forwarding_parties_type_0_item = Party.from_dict(
                        forwarding_parties_type_0_item_data
                    )

                    forwarding_parties_type_0.append(forwarding_parties_type_0_item)

                return forwarding_parties_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Party] | None | Unset, data)

        forwarding_parties = _parse_forwarding_parties(
            d.pop("forwardingParties", UNSET)
        )

        def _parse_originating_party(data: object) -> None | Party | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                originating_party_type_0 = Party.from_dict(data)

                return originating_party_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Party | Unset, data)

        originating_party = _parse_originating_party(d.pop("originatingParty", UNSET))

        event_routing = cls(
            destination_party=destination_party,
            forwarding_parties=forwarding_parties,
            originating_party=originating_party,
        )

        event_routing.additional_properties = d
        return event_routing

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
