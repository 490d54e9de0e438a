from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BulkResult")


@_attrs_define
class BulkResult:
    """
    Attributes:
        index (int):
        message (str):
        status (str):
        subscription_reference (str):
        scac_code (str | Unset):
    """

    index: int
    message: str
    status: str
    subscription_reference: str
    scac_code: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        message = self.message

        status = self.status

        subscription_reference = self.subscription_reference

        scac_code = self.scac_code

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "message": message,
                "status": status,
                "subscriptionReference": subscription_reference,
            }
        )
        if scac_code is not UNSET:
            field_dict["scacCode"] = scac_code

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        index = d.pop("index")

        message = d.pop("message")

        status = d.pop("status")

        subscription_reference = d.pop("subscriptionReference")

        scac_code = d.pop("scacCode", UNSET)

        bulk_result = cls(
            index=index,
            message=message,
            status=status,
            subscription_reference=subscription_reference,
            scac_code=scac_code,
        )

        bulk_result.additional_properties = d
        return bulk_result

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
