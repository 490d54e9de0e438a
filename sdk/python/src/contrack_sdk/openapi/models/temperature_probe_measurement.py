from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TemperatureProbeMeasurement")


@_attrs_define
class TemperatureProbeMeasurement:
    """
    Attributes:
        coa_probe_udm_key (str | Unset):
        usda_probe_number (int | None | Unset):
        measured_temperature_value (float | None | Unset):
        probe_label (str | Unset):
    """

    coa_probe_udm_key: str | Unset = UNSET
    usda_probe_number: int | None | Unset = UNSET
    measured_temperature_value: float | None | Unset = UNSET
    probe_label: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        coa_probe_udm_key = self.coa_probe_udm_key

        usda_probe_number: int | None | Unset
        if isinstance(self.usda_probe_number, Unset):
            usda_probe_number = UNSET
        else:
            usda_probe_number = self.usda_probe_number

        measured_temperature_value: float | None | Unset
        if isinstance(self.measured_temperature_value, Unset):
            measured_temperature_value = UNSET
        else:
            measured_temperature_value = self.measured_temperature_value

        probe_label = self.probe_label

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if coa_probe_udm_key is not UNSET:
            field_dict["COAProbeUDMKey"] = coa_probe_udm_key
        if usda_probe_number is not UNSET:
            field_dict["USDAProbeNumber"] = usda_probe_number
        if measured_temperature_value is not UNSET:
            field_dict["measuredTemperatureValue"] = measured_temperature_value
        if probe_label is not UNSET:
            field_dict["probeLabel"] = probe_label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        coa_probe_udm_key = d.pop("COAProbeUDMKey", UNSET)

        def _parse_usda_probe_number(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        usda_probe_number = _parse_usda_probe_number(d.pop("USDAProbeNumber", UNSET))

        def _parse_measured_temperature_value(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        measured_temperature_value = _parse_measured_temperature_value(
            d.pop("measuredTemperatureValue", UNSET)
        )

        probe_label = d.pop("probeLabel", UNSET)

        temperature_probe_measurement = cls(
            coa_probe_udm_key=coa_probe_udm_key,
            usda_probe_number=usda_probe_number,
            measured_temperature_value=measured_temperature_value,
            probe_label=probe_label,
        )

        temperature_probe_measurement.additional_properties = d
        return temperature_probe_measurement

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
