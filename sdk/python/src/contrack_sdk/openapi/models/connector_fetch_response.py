from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ConnectorFetchResponse")


@_attrs_define
class ConnectorFetchResponse:
    """ConnectorFetchResponse schema

    Attributes:
        code (str):
        event_count (int):
        events (list[Any] | None):
        http_code (int):
        outcome (str):
        pages (int):
        requests (list[str] | None):
        next_cursor (str | Unset):
        reason (str | Unset):
    """

    code: str
    event_count: int
    events: list[Any] | None
    http_code: int
    outcome: str
    pages: int
    requests: list[str] | None
    next_cursor: str | Unset = UNSET
    reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        event_count = self.event_count

        events: list[Any] | None
        if isinstance(self.events, list):
            events = self.events

        else:
            events = self.events

        http_code = self.http_code

        outcome = self.outcome

        pages = self.pages

        requests: list[str] | None
        if isinstance(self.requests, list):
            requests = self.requests

        else:
            requests = self.requests

        next_cursor = self.next_cursor

        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "eventCount": event_count,
                "events": events,
                "httpCode": http_code,
                "outcome": outcome,
                "pages": pages,
                "requests": requests,
            }
        )
        if next_cursor is not UNSET:
            field_dict["nextCursor"] = next_cursor
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = d.pop("code")

        event_count = d.pop("eventCount")

        def _parse_events(data: object) -> list[Any] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                events_type_0 = cast(list[Any], data)

                return events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None, data)

        events = _parse_events(d.pop("events"))

        http_code = d.pop("httpCode")

        outcome = d.pop("outcome")

        pages = d.pop("pages")

        def _parse_requests(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                requests_type_0 = cast(list[str], data)

                return requests_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        requests = _parse_requests(d.pop("requests"))

        next_cursor = d.pop("nextCursor", UNSET)

        reason = d.pop("reason", UNSET)

        connector_fetch_response = cls(
            code=code,
            event_count=event_count,
            events=events,
            http_code=http_code,
            outcome=outcome,
            pages=pages,
            requests=requests,
            next_cursor=next_cursor,
            reason=reason,
        )

        connector_fetch_response.additional_properties = d
        return connector_fetch_response

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
