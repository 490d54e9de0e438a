from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.infer_candidate import InferCandidate
    from ..models.infer_probe import InferProbe


T = TypeVar("T", bound="InferResponse")


@_attrs_define
class InferResponse:
    """InferResponse schema

    Attributes:
        candidates (list[InferCandidate] | None):
        kind (str):
        number (str):
        probed (list[InferProbe] | None | Unset):
    """

    candidates: list[InferCandidate] | None
    kind: str
    number: str
    probed: list[InferProbe] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        candidates: list[dict[str, Any]] | None
        if isinstance(self.candidates, list):
            candidates = []
            for candidates_type_0_item_data in self.candidates:
                candidates_type_0_item = candidates_type_0_item_data.to_dict()
                candidates.append(candidates_type_0_item)

        else:
            candidates = self.candidates

        kind = self.kind

        number = self.number

        probed: list[dict[str, Any]] | None | Unset
        if isinstance(self.probed, Unset):
            probed = UNSET
        elif isinstance(self.probed, list):
            probed = []
            for probed_type_0_item_data in self.probed:
                probed_type_0_item = probed_type_0_item_data.to_dict()
                probed.append(probed_type_0_item)

        else:
            probed = self.probed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "candidates": candidates,
                "kind": kind,
                "number": number,
            }
        )
        if probed is not UNSET:
            field_dict["probed"] = probed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.infer_candidate import InferCandidate
        from ..models.infer_probe import InferProbe

        d = dict(src_dict)

        def _parse_candidates(data: object) -> list[InferCandidate] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                candidates_type_0 = []
                _candidates_type_0 = data
                for candidates_type_0_item_data in _candidates_type_0:
                    candidates_type_0_item = InferCandidate.from_dict(
                        candidates_type_0_item_data
                    )

                    candidates_type_0.append(candidates_type_0_item)

                return candidates_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InferCandidate] | None, data)

        candidates = _parse_candidates(d.pop("candidates"))

        kind = d.pop("kind")

        number = d.pop("number")

        def _parse_probed(data: object) -> list[InferProbe] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                probed_type_0 = []
                _probed_type_0 = data
                for probed_type_0_item_data in _probed_type_0:
                    probed_type_0_item = InferProbe.from_dict(probed_type_0_item_data)

                    probed_type_0.append(probed_type_0_item)

                return probed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[InferProbe] | None | Unset, data)

        probed = _parse_probed(d.pop("probed", UNSET))

        infer_response = cls(
            candidates=candidates,
            kind=kind,
            number=number,
            probed=probed,
        )

        infer_response.additional_properties = d
        return infer_response

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
