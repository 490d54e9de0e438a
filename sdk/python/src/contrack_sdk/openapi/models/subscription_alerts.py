from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.alert import Alert


T = TypeVar("T", bound="SubscriptionAlerts")


@_attrs_define
class SubscriptionAlerts:
    """SubscriptionAlerts schema

    Attributes:
        alerts (list[Alert] | None):
        subscription_reference (str):
    """

    alerts: list[Alert] | None
    subscription_reference: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        alerts: list[dict[str, Any]] | None
        if isinstance(self.alerts, list):
            alerts = []
            for alerts_type_0_item_data in self.alerts:
                alerts_type_0_item = alerts_type_0_item_data.to_dict()
                alerts.append(alerts_type_0_item)

        else:
            alerts = self.alerts

        subscription_reference = self.subscription_reference

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "alerts": alerts,
                "subscriptionReference": subscription_reference,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.alert import Alert

        d = dict(src_dict)

        def _parse_alerts(data: object) -> list[Alert] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                alerts_type_0 = []
                _alerts_type_0 = data
                for alerts_type_0_item_data in _alerts_type_0:
                    alerts_type_0_item = Alert.from_dict(alerts_type_0_item_data)

                    alerts_type_0.append(alerts_type_0_item)

                return alerts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Alert] | None, data)

        alerts = _parse_alerts(d.pop("alerts"))

        subscription_reference = d.pop("subscriptionReference")

        subscription_alerts = cls(
            alerts=alerts,
            subscription_reference=subscription_reference,
        )

        subscription_alerts.additional_properties = d
        return subscription_alerts

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
