from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

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
        usage_plan (None | UsagePlan):
        polling_capacity (list[CarrierCapacity] | None | Unset):
    """

    auth_method: str
    client_name: None | str
    display_name: str
    environment: str
    usage_plan: None | UsagePlan
    polling_capacity: list[CarrierCapacity] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.usage_plan import UsagePlan

        auth_method = self.auth_method

        client_name: None | str
        client_name = self.client_name

        display_name = self.display_name

        environment = self.environment

        usage_plan: dict[str, Any] | None
        if isinstance(self.usage_plan, UsagePlan):
            usage_plan = self.usage_plan.to_dict()
        else:
            usage_plan = self.usage_plan

        polling_capacity: list[dict[str, Any]] | None | Unset
        if isinstance(self.polling_capacity, Unset):
            polling_capacity = UNSET
        elif isinstance(self.polling_capacity, list):
            polling_capacity = []
            for polling_capacity_type_0_item_data in self.polling_capacity:
                polling_capacity_type_0_item = (
                    polling_capacity_type_0_item_data.to_dict()
                )
                polling_capacity.append(polling_capacity_type_0_item)

        else:
            polling_capacity = self.polling_capacity

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "authMethod": auth_method,
                "clientName": client_name,
                "displayName": display_name,
                "environment": environment,
                "usagePlan": usage_plan,
            }
        )
        if polling_capacity is not UNSET:
            field_dict["pollingCapacity"] = polling_capacity

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

        def _parse_polling_capacity(
            data: object,
        ) -> list[CarrierCapacity] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
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
            return cast(list[CarrierCapacity] | None | Unset, data)

        polling_capacity = _parse_polling_capacity(d.pop("pollingCapacity", UNSET))

        account_response = cls(
            auth_method=auth_method,
            client_name=client_name,
            display_name=display_name,
            environment=environment,
            usage_plan=usage_plan,
            polling_capacity=polling_capacity,
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
