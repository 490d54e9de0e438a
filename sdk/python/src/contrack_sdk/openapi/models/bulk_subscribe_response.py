from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.bulk_result import BulkResult


T = TypeVar("T", bound="BulkSubscribeResponse")


@_attrs_define
class BulkSubscribeResponse:
    """BulkSubscribeResponse schema

    Attributes:
        created (int):
        date_of_request (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
        exists (int):
        invalid (int):
        results (list[BulkResult] | None):
    """

    created: int
    date_of_request: datetime.datetime
    exists: int
    invalid: int
    results: list[BulkResult] | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created = self.created

        date_of_request = self.date_of_request.isoformat()

        exists = self.exists

        invalid = self.invalid

        results: list[dict[str, Any]] | None
        if isinstance(self.results, list):
            results = []
            for results_type_0_item_data in self.results:
                results_type_0_item = results_type_0_item_data.to_dict()
                results.append(results_type_0_item)

        else:
            results = self.results

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created": created,
                "dateOfRequest": date_of_request,
                "exists": exists,
                "invalid": invalid,
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bulk_result import BulkResult

        d = dict(src_dict)
        created = d.pop("created")

        date_of_request = datetime.datetime.fromisoformat(d.pop("dateOfRequest"))

        exists = d.pop("exists")

        invalid = d.pop("invalid")

        def _parse_results(data: object) -> list[BulkResult] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                results_type_0 = []
                _results_type_0 = data
                for results_type_0_item_data in _results_type_0:
                    results_type_0_item = BulkResult.from_dict(results_type_0_item_data)

                    results_type_0.append(results_type_0_item)

                return results_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[BulkResult] | None, data)

        results = _parse_results(d.pop("results"))

        bulk_subscribe_response = cls(
            created=created,
            date_of_request=date_of_request,
            exists=exists,
            invalid=invalid,
            results=results,
        )

        bulk_subscribe_response.additional_properties = d
        return bulk_subscribe_response

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
