from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReeferParameters")


@_attrs_define
class ReeferParameters:
    """
    Attributes:
        air_exchange_unit (str | Unset):
        air_exchange_value (float | None | Unset):
        co_2_percentage (float | None | Unset):
        humidity_percentage (float | None | Unset):
        is_bulb_mode (bool | None | Unset):
        is_cold_treatment_required (bool | None | Unset):
        is_controlled_atmosphere_required (bool | None | Unset):
        is_drainholes_open (bool | None | Unset):
        is_ventilation_open (bool | None | Unset):
        o_2_percentage (float | None | Unset):
    """

    air_exchange_unit: str | Unset = UNSET
    air_exchange_value: float | None | Unset = UNSET
    co_2_percentage: float | None | Unset = UNSET
    humidity_percentage: float | None | Unset = UNSET
    is_bulb_mode: bool | None | Unset = UNSET
    is_cold_treatment_required: bool | None | Unset = UNSET
    is_controlled_atmosphere_required: bool | None | Unset = UNSET
    is_drainholes_open: bool | None | Unset = UNSET
    is_ventilation_open: bool | None | Unset = UNSET
    o_2_percentage: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        air_exchange_unit = self.air_exchange_unit

        air_exchange_value: float | None | Unset
        if isinstance(self.air_exchange_value, Unset):
            air_exchange_value = UNSET
        else:
            air_exchange_value = self.air_exchange_value

        co_2_percentage: float | None | Unset
        if isinstance(self.co_2_percentage, Unset):
            co_2_percentage = UNSET
        else:
            co_2_percentage = self.co_2_percentage

        humidity_percentage: float | None | Unset
        if isinstance(self.humidity_percentage, Unset):
            humidity_percentage = UNSET
        else:
            humidity_percentage = self.humidity_percentage

        is_bulb_mode: bool | None | Unset
        if isinstance(self.is_bulb_mode, Unset):
            is_bulb_mode = UNSET
        else:
            is_bulb_mode = self.is_bulb_mode

        is_cold_treatment_required: bool | None | Unset
        if isinstance(self.is_cold_treatment_required, Unset):
            is_cold_treatment_required = UNSET
        else:
            is_cold_treatment_required = self.is_cold_treatment_required

        is_controlled_atmosphere_required: bool | None | Unset
        if isinstance(self.is_controlled_atmosphere_required, Unset):
            is_controlled_atmosphere_required = UNSET
        else:
            is_controlled_atmosphere_required = self.is_controlled_atmosphere_required

        is_drainholes_open: bool | None | Unset
        if isinstance(self.is_drainholes_open, Unset):
            is_drainholes_open = UNSET
        else:
            is_drainholes_open = self.is_drainholes_open

        is_ventilation_open: bool | None | Unset
        if isinstance(self.is_ventilation_open, Unset):
            is_ventilation_open = UNSET
        else:
            is_ventilation_open = self.is_ventilation_open

        o_2_percentage: float | None | Unset
        if isinstance(self.o_2_percentage, Unset):
            o_2_percentage = UNSET
        else:
            o_2_percentage = self.o_2_percentage

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if air_exchange_unit is not UNSET:
            field_dict["airExchangeUnit"] = air_exchange_unit
        if air_exchange_value is not UNSET:
            field_dict["airExchangeValue"] = air_exchange_value
        if co_2_percentage is not UNSET:
            field_dict["co2Percentage"] = co_2_percentage
        if humidity_percentage is not UNSET:
            field_dict["humidityPercentage"] = humidity_percentage
        if is_bulb_mode is not UNSET:
            field_dict["isBulbMode"] = is_bulb_mode
        if is_cold_treatment_required is not UNSET:
            field_dict["isColdTreatmentRequired"] = is_cold_treatment_required
        if is_controlled_atmosphere_required is not UNSET:
            field_dict["isControlledAtmosphereRequired"] = (
                is_controlled_atmosphere_required
            )
        if is_drainholes_open is not UNSET:
            field_dict["isDrainholesOpen"] = is_drainholes_open
        if is_ventilation_open is not UNSET:
            field_dict["isVentilationOpen"] = is_ventilation_open
        if o_2_percentage is not UNSET:
            field_dict["o2Percentage"] = o_2_percentage

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        air_exchange_unit = d.pop("airExchangeUnit", UNSET)

        def _parse_air_exchange_value(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        air_exchange_value = _parse_air_exchange_value(d.pop("airExchangeValue", UNSET))

        def _parse_co_2_percentage(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        co_2_percentage = _parse_co_2_percentage(d.pop("co2Percentage", UNSET))

        def _parse_humidity_percentage(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        humidity_percentage = _parse_humidity_percentage(
            d.pop("humidityPercentage", UNSET)
        )

        def _parse_is_bulb_mode(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_bulb_mode = _parse_is_bulb_mode(d.pop("isBulbMode", UNSET))

        def _parse_is_cold_treatment_required(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_cold_treatment_required = _parse_is_cold_treatment_required(
            d.pop("isColdTreatmentRequired", UNSET)
        )

        def _parse_is_controlled_atmosphere_required(
            data: object,
        ) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_controlled_atmosphere_required = _parse_is_controlled_atmosphere_required(
            d.pop("isControlledAtmosphereRequired", UNSET)
        )

        def _parse_is_drainholes_open(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_drainholes_open = _parse_is_drainholes_open(d.pop("isDrainholesOpen", UNSET))

        def _parse_is_ventilation_open(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_ventilation_open = _parse_is_ventilation_open(
            d.pop("isVentilationOpen", UNSET)
        )

        def _parse_o_2_percentage(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        o_2_percentage = _parse_o_2_percentage(d.pop("o2Percentage", UNSET))

        reefer_parameters = cls(
            air_exchange_unit=air_exchange_unit,
            air_exchange_value=air_exchange_value,
            co_2_percentage=co_2_percentage,
            humidity_percentage=humidity_percentage,
            is_bulb_mode=is_bulb_mode,
            is_cold_treatment_required=is_cold_treatment_required,
            is_controlled_atmosphere_required=is_controlled_atmosphere_required,
            is_drainholes_open=is_drainholes_open,
            is_ventilation_open=is_ventilation_open,
            o_2_percentage=o_2_percentage,
        )

        reefer_parameters.additional_properties = d
        return reefer_parameters

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
