from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transport_call import TransportCall


T = TypeVar("T", bound="TransportDetails")


@_attrs_define
class TransportDetails:
    """
    Attributes:
        change_remark (str | Unset):
        delay_reason_codes (list[str] | None | Unset):
        transport_call (None | TransportCall | Unset):
    """

    change_remark: str | Unset = UNSET
    delay_reason_codes: list[str] | None | Unset = UNSET
    transport_call: None | TransportCall | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.transport_call import TransportCall

        change_remark = self.change_remark

        delay_reason_codes: list[str] | None | Unset
        if isinstance(self.delay_reason_codes, Unset):
            delay_reason_codes = UNSET
        elif isinstance(self.delay_reason_codes, list):
            delay_reason_codes = self.delay_reason_codes

        else:
            delay_reason_codes = self.delay_reason_codes

        transport_call: dict[str, Any] | None | Unset
        if isinstance(self.transport_call, Unset):
            transport_call = UNSET
        elif isinstance(self.transport_call, TransportCall):
            transport_call = self.transport_call.to_dict()
        else:
            transport_call = self.transport_call

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if change_remark is not UNSET:
            field_dict["changeRemark"] = change_remark
        if delay_reason_codes is not UNSET:
            field_dict["delayReasonCodes"] = delay_reason_codes
        if transport_call is not UNSET:
            field_dict["transportCall"] = transport_call

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.transport_call import TransportCall

        d = dict(src_dict)
        change_remark = d.pop("changeRemark", UNSET)

        def _parse_delay_reason_codes(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                delay_reason_codes_type_0 = cast(list[str], data)

                return delay_reason_codes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        delay_reason_codes = _parse_delay_reason_codes(d.pop("delayReasonCodes", UNSET))

        def _parse_transport_call(data: object) -> None | TransportCall | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                transport_call_type_0 = TransportCall.from_dict(data)

                return transport_call_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TransportCall | Unset, data)

        transport_call = _parse_transport_call(d.pop("transportCall", UNSET))

        transport_details = cls(
            change_remark=change_remark,
            delay_reason_codes=delay_reason_codes,
            transport_call=transport_call,
        )

        transport_details.additional_properties = d
        return transport_details

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
