from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.carrier_capacity import CarrierCapacity
    from ..models.usage_plan import UsagePlan


T = TypeVar("T", bound="AccountResponse")


@_attrs_define
class AccountResponse:
    """AccountResponse schema

    Attributes:
        auth_method (str):
        client_name (None | str):
        display_name (str):
        environment (str):
        polling_capacity (list[CarrierCapacity] | None):
        usage_plan (None | UsagePlan):
    """

    auth_method: str
    client_name: None | str
    display_name: str
    environment: str
    polling_capacity: list[CarrierCapacity] | None
    usage_plan: None | UsagePlan
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.usage_plan import UsagePlan

        auth_method = self.auth_method

        client_name: None | str
        client_name = self.client_name

        display_name = self.display_name

        environment = self.environment

        polling_capacity: list[dict[str, Any]] | None
        if isinstance(self.polling_capacity, list):
            polling_capacity = []
            for polling_capacity_type_0_item_data in self.polling_capacity:
                polling_capacity_type_0_item = (
                    polling_capacity_type_0_item_data.to_dict()
                )
                polling_capacity.append(polling_capacity_type_0_item)

        else:
            polling_capacity = self.polling_capacity

        usage_plan: dict[str, Any] | None
        if isinstance(self.usage_plan, UsagePlan):
            usage_plan = self.usage_plan.to_dict()
        else:
            usage_plan = self.usage_plan

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "authMethod": auth_method,
                "clientName": client_name,
                "displayName": display_name,
                "environment": environment,
                "pollingCapacity": polling_capacity,
                "usagePlan": usage_plan,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.carrier_capacity import CarrierCapacity
        from ..models.usage_plan import UsagePlan

        d = dict(src_dict)
        auth_method = d.pop("authMethod")

        def _parse_client_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        client_name = _parse_client_name(d.pop("clientName"))

        display_name = d.pop("displayName")

        environment = d.pop("environment")

        def _parse_polling_capacity(data: object) -> list[CarrierCapacity] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                polling_capacity_type_0 = []
                _polling_capacity_type_0 = data
                for polling_capacity_type_0_item_data in _polling_capacity_type_0:
                    polling_capacity_type_0_item = CarrierCapacity.from_dict(
                        polling_capacity_type_0_item_data
                    )

                    polling_capacity_type_0.append(polling_capacity_type_0_item)

                return polling_capacity_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CarrierCapacity] | None, data)

        polling_capacity = _parse_polling_capacity(d.pop("pollingCapacity"))

        def _parse_usage_plan(data: object) -> None | UsagePlan:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                usage_plan_type_0 = UsagePlan.from_dict(data)

                return usage_plan_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UsagePlan, data)

        usage_plan = _parse_usage_plan(d.pop("usagePlan"))

        account_response = cls(
            auth_method=auth_method,
            client_name=client_name,
            display_name=display_name,
            environment=environment,
            polling_capacity=polling_capacity,
            usage_plan=usage_plan,
        )

        account_response.additional_properties = d
        return account_response

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
