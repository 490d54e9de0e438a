from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.data_quality_repairs_type_0 import DataQualityRepairsType0


T = TypeVar("T", bound="DataQuality")


@_attrs_define
class DataQuality:
    """
    Attributes:
        events_read (int):
        refused (int):
        repairs (DataQualityRepairsType0 | None):
        last_refusal (str | Unset):
    """

    events_read: int
    refused: int
    repairs: DataQualityRepairsType0 | None
    last_refusal: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.data_quality_repairs_type_0 import DataQualityRepairsType0

        events_read = self.events_read

        refused = self.refused

        repairs: dict[str, Any] | None
        if isinstance(self.repairs, DataQualityRepairsType0):
            repairs = self.repairs.to_dict()
        else:
            repairs = self.repairs

        last_refusal = self.last_refusal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "eventsRead": events_read,
                "refused": refused,
                "repairs": repairs,
            }
        )
        if last_refusal is not UNSET:
            field_dict["lastRefusal"] = last_refusal

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.data_quality_repairs_type_0 import DataQualityRepairsType0

        d = dict(src_dict)
        events_read = d.pop("eventsRead")

        refused = d.pop("refused")

        def _parse_repairs(data: object) -> DataQualityRepairsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                repairs_type_0 = DataQualityRepairsType0.from_dict(data)

                return repairs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DataQualityRepairsType0 | None, data)

        repairs = _parse_repairs(d.pop("repairs"))

        last_refusal = d.pop("lastRefusal", UNSET)

        data_quality = cls(
            events_read=events_read,
            refused=refused,
            repairs=repairs,
            last_refusal=last_refusal,
        )

        data_quality.additional_properties = d
        return data_quality

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
