from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.port_eta import PortETA


T = TypeVar("T", bound="Prediction")


@_attrs_define
class Prediction:
    """
    Attributes:
        pod (None | PortETA):
        based_on (str):
        next_port (None | PortETA):
        speed_knots (float):
    """

    pod: None | PortETA
    based_on: str
    next_port: None | PortETA
    speed_knots: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.port_eta import PortETA

        pod: dict[str, Any] | None
        if isinstance(self.pod, PortETA):
            pod = self.pod.to_dict()
        else:
            pod = self.pod

        based_on = self.based_on

        next_port: dict[str, Any] | None
        if isinstance(self.next_port, PortETA):
            next_port = self.next_port.to_dict()
        else:
            next_port = self.next_port

        speed_knots = self.speed_knots

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "POD": pod,
                "basedOn": based_on,
                "nextPort": next_port,
                "speedKnots": speed_knots,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.port_eta import PortETA

        d = dict(src_dict)

        def _parse_pod(data: object) -> None | PortETA:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pod_type_0 = PortETA.from_dict(data)

                return pod_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PortETA, data)

        pod = _parse_pod(d.pop("POD"))

        based_on = d.pop("basedOn")

        def _parse_next_port(data: object) -> None | PortETA:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                next_port_type_0 = PortETA.from_dict(data)

                return next_port_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PortETA, data)

        next_port = _parse_next_port(d.pop("nextPort"))

        speed_knots = d.pop("speedKnots")

        prediction = cls(
            pod=pod,
            based_on=based_on,
            next_port=next_port,
            speed_knots=speed_knots,
        )

        prediction.additional_properties = d
        return prediction

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
