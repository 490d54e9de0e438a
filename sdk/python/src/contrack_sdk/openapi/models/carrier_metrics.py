from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.data_quality import DataQuality


T = TypeVar("T", bound="CarrierMetrics")


@_attrs_define
class CarrierMetrics:
    """
    Attributes:
        attempts (int):
        avg_latency_ms (float):
        data_quality (DataQuality):
        error_rate (float):
        errors (int):
        last_attempt_at (datetime.datetime): RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z
        no_data (int):
        p_95_latency_ms (float):
        scac_code (str):
        success (int):
    """

    attempts: int
    avg_latency_ms: float
    data_quality: DataQuality
    error_rate: float
    errors: int
    last_attempt_at: datetime.datetime
    no_data: int
    p_95_latency_ms: float
    scac_code: str
    success: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempts = self.attempts

        avg_latency_ms = self.avg_latency_ms

        data_quality = self.data_quality.to_dict()

        error_rate = self.error_rate

        errors = self.errors

        last_attempt_at = self.last_attempt_at.isoformat()

        no_data = self.no_data

        p_95_latency_ms = self.p_95_latency_ms

        scac_code = self.scac_code

        success = self.success

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempts": attempts,
                "avgLatencyMs": avg_latency_ms,
                "dataQuality": data_quality,
                "errorRate": error_rate,
                "errors": errors,
                "lastAttemptAt": last_attempt_at,
                "noData": no_data,
                "p95LatencyMs": p_95_latency_ms,
                "scacCode": scac_code,
                "success": success,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.data_quality import DataQuality

        d = dict(src_dict)
        attempts = d.pop("attempts")

        avg_latency_ms = d.pop("avgLatencyMs")

        data_quality = DataQuality.from_dict(d.pop("dataQuality"))

        error_rate = d.pop("errorRate")

        errors = d.pop("errors")

        last_attempt_at = datetime.datetime.fromisoformat(d.pop("lastAttemptAt"))

        no_data = d.pop("noData")

        p_95_latency_ms = d.pop("p95LatencyMs")

        scac_code = d.pop("scacCode")

        success = d.pop("success")

        carrier_metrics = cls(
            attempts=attempts,
            avg_latency_ms=avg_latency_ms,
            data_quality=data_quality,
            error_rate=error_rate,
            errors=errors,
            last_attempt_at=last_attempt_at,
            no_data=no_data,
            p_95_latency_ms=p_95_latency_ms,
            scac_code=scac_code,
            success=success,
        )

        carrier_metrics.additional_properties = d
        return carrier_metrics

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
