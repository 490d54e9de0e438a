from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reefer_parameters import ReeferParameters
    from ..models.temperature_probe_measurement import TemperatureProbeMeasurement


T = TypeVar("T", bound="ReeferDetails")


@_attrs_define
class ReeferDetails:
    """
    Attributes:
        ambient_measured_temperature (float | None | Unset):
        internal_setpoint_temperature (float | None | Unset):
        measured_parameters (None | ReeferParameters | Unset):
        setpoint_parameters (None | ReeferParameters | Unset):
        temperature_probe_measurements (list[TemperatureProbeMeasurement] | None | Unset):
        temperature_unit (str | Unset):
    """

    ambient_measured_temperature: float | None | Unset = UNSET
    internal_setpoint_temperature: float | None | Unset = UNSET
    measured_parameters: None | ReeferParameters | Unset = UNSET
    setpoint_parameters: None | ReeferParameters | Unset = UNSET
    temperature_probe_measurements: list[TemperatureProbeMeasurement] | None | Unset = (
        UNSET
    )
    temperature_unit: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.reefer_parameters import ReeferParameters

        ambient_measured_temperature: float | None | Unset
        if isinstance(self.ambient_measured_temperature, Unset):
            ambient_measured_temperature = UNSET
        else:
            ambient_measured_temperature = self.ambient_measured_temperature

        internal_setpoint_temperature: float | None | Unset
        if isinstance(self.internal_setpoint_temperature, Unset):
            internal_setpoint_temperature = UNSET
        else:
            internal_setpoint_temperature = self.internal_setpoint_temperature

        measured_parameters: dict[str, Any] | None | Unset
        if isinstance(self.measured_parameters, Unset):
            measured_parameters = UNSET
        elif isinstance(self.measured_parameters, ReeferParameters):
            measured_parameters = self.measured_parameters.to_dict()
        else:
            measured_parameters = self.measured_parameters

        setpoint_parameters: dict[str, Any] | None | Unset
        if isinstance(self.setpoint_parameters, Unset):
            setpoint_parameters = UNSET
        elif isinstance(self.setpoint_parameters, ReeferParameters):
            setpoint_parameters = self.setpoint_parameters.to_dict()
        else:
            setpoint_parameters = self.setpoint_parameters

        temperature_probe_measurements: list[dict[str, Any]] | None | Unset
        if isinstance(self.temperature_probe_measurements, Unset):
            temperature_probe_measurements = UNSET
        elif isinstance(self.temperature_probe_measurements, list):
            temperature_probe_measurements = []
            for (
                temperature_probe_measurements_type_0_item_data
            ) in self.temperature_probe_measurements:
                temperature_probe_measurements_type_0_item = (
                    temperature_probe_measurements_type_0_item_data.to_dict()
                )
                temperature_probe_measurements.append(
                    temperature_probe_measurements_type_0_item
                )

        else:
            temperature_probe_measurements = self.temperature_probe_measurements

        temperature_unit = self.temperature_unit

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if ambient_measured_temperature is not UNSET:
            field_dict["ambientMeasuredTemperature"] = ambient_measured_temperature
        if internal_setpoint_temperature is not UNSET:
            field_dict["internalSetpointTemperature"] = internal_setpoint_temperature
        if measured_parameters is not UNSET:
            field_dict["measuredParameters"] = measured_parameters
        if setpoint_parameters is not UNSET:
            field_dict["setpointParameters"] = setpoint_parameters
        if temperature_probe_measurements is not UNSET:
            field_dict["temperatureProbeMeasurements"] = temperature_probe_measurements
        if temperature_unit is not UNSET:
            field_dict["temperatureUnit"] = temperature_unit

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.reefer_parameters import ReeferParameters
        from ..models.temperature_probe_measurement import TemperatureProbeMeasurement

        d = dict(src_dict)

        def _parse_ambient_measured_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ambient_measured_temperature = _parse_ambient_measured_temperature(
            d.pop("ambientMeasuredTemperature", UNSET)
        )

        def _parse_internal_setpoint_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        internal_setpoint_temperature = _parse_internal_setpoint_temperature(
            d.pop("internalSetpointTemperature", UNSET)
        )

        def _parse_measured_parameters(data: object) -> None | ReeferParameters | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                measured_parameters_type_0 = ReeferParameters.from_dict(data)

                return measured_parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReeferParameters | Unset, data)

        measured_parameters = _parse_measured_parameters(
            d.pop("measuredParameters", UNSET)
        )

        def _parse_setpoint_parameters(data: object) -> None | ReeferParameters | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                setpoint_parameters_type_0 = ReeferParameters.from_dict(data)

                return setpoint_parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReeferParameters | Unset, data)

        setpoint_parameters = _parse_setpoint_parameters(
            d.pop("setpointParameters", UNSET)
        )

        def _parse_temperature_probe_measurements(
            data: object,
        ) -> list[TemperatureProbeMeasurement] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                temperature_probe_measurements_type_0 = []
                _temperature_probe_measurements_type_0 = data
                for (
                    temperature_probe_measurements_type_0_item_data
                ) in _temperature_probe_measurements_type_0:
                    temperature_probe_measurements_type_0_item = (
                        TemperatureProbeMeasurement.from_dict(
                            temperature_probe_measurements_type_0_item_data
                        )
                    )

                    temperature_probe_measurements_type_0.append(
                        temperature_probe_measurements_type_0_item
                    )

                return temperature_probe_measurements_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TemperatureProbeMeasurement] | None | Unset, data)

        temperature_probe_measurements = _parse_temperature_probe_measurements(
            d.pop("temperatureProbeMeasurements", UNSET)
        )

        temperature_unit = d.pop("temperatureUnit", UNSET)

        reefer_details = cls(
            ambient_measured_temperature=ambient_measured_temperature,
            internal_setpoint_temperature=internal_setpoint_temperature,
            measured_parameters=measured_parameters,
            setpoint_parameters=setpoint_parameters,
            temperature_probe_measurements=temperature_probe_measurements,
            temperature_unit=temperature_unit,
        )

        reefer_details.additional_properties = d
        return reefer_details

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
