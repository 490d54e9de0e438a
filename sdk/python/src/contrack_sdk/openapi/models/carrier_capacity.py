from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CarrierCapacity")


@_attrs_define
class CarrierCapacity:
    """
    Attributes:
        allowed_polls_per_second (float):
        awaiting_first_poll (int):
        configured_interval_seconds (float):
        interval_p50_seconds (float | None):
        interval_p95_seconds (float | None):
        polls_per_second (float):
        scac_code (str):
        trackings (int):
        updated_at (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
    """

    allowed_polls_per_second: float
    awaiting_first_poll: int
    configured_interval_seconds: float
    interval_p50_seconds: float | None
    interval_p95_seconds: float | None
    polls_per_second: float
    scac_code: str
    trackings: int
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed_polls_per_second = self.allowed_polls_per_second

        awaiting_first_poll = self.awaiting_first_poll

        configured_interval_seconds = self.configured_interval_seconds

        interval_p50_seconds: float | None
        interval_p50_seconds = self.interval_p50_seconds

        interval_p95_seconds: float | None
        interval_p95_seconds = self.interval_p95_seconds

        polls_per_second = self.polls_per_second

        scac_code = self.scac_code

        trackings = self.trackings

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowedPollsPerSecond": allowed_polls_per_second,
                "awaitingFirstPoll": awaiting_first_poll,
                "configuredIntervalSeconds": configured_interval_seconds,
                "intervalP50Seconds": interval_p50_seconds,
                "intervalP95Seconds": interval_p95_seconds,
                "pollsPerSecond": polls_per_second,
                "scacCode": scac_code,
                "trackings": trackings,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        allowed_polls_per_second = d.pop("allowedPollsPerSecond")

        awaiting_first_poll = d.pop("awaitingFirstPoll")

        configured_interval_seconds = d.pop("configuredIntervalSeconds")

        def _parse_interval_p50_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        interval_p50_seconds = _parse_interval_p50_seconds(d.pop("intervalP50Seconds"))

        def _parse_interval_p95_seconds(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        interval_p95_seconds = _parse_interval_p95_seconds(d.pop("intervalP95Seconds"))

        polls_per_second = d.pop("pollsPerSecond")

        scac_code = d.pop("scacCode")

        trackings = d.pop("trackings")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        carrier_capacity = cls(
            allowed_polls_per_second=allowed_polls_per_second,
            awaiting_first_poll=awaiting_first_poll,
            configured_interval_seconds=configured_interval_seconds,
            interval_p50_seconds=interval_p50_seconds,
            interval_p95_seconds=interval_p95_seconds,
            polls_per_second=polls_per_second,
            scac_code=scac_code,
            trackings=trackings,
            updated_at=updated_at,
        )

        carrier_capacity.additional_properties = d
        return carrier_capacity

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
