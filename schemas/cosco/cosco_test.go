package cosco

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestEventTime(t *testing.T) {
	got, err := Event{EventTime: "2026-03-01 14:20:00", TimeZone: "+08:00"}.Time()
	if err != nil || !got.Equal(time.Date(2026, 3, 1, 6, 20, 0, 0, time.UTC)) {
		t.Fatalf("Time() = %s, %v", got, err)
	}
	if _, offset := got.Zone(); offset != 8*3600 {
		t.Fatalf("offset %d", offset)
	}
	for _, e := range []Event{{EventTime: "2026-03-01T14:20:00", TimeZone: "+08:00"}, {EventTime: "2026-03-01 14:20:00"}} {
		if _, err := e.Time(); !errors.Is(err, ErrBadTime) {
			t.Errorf("%+v: err = %v", e, err)
		}
	}
}

func TestEveryEventCodeHasAName(t *testing.T) {
	for _, c := range []string{EventEmptyPickup, EventGateIn, EventLoad, EventDeparture, EventArrival, EventDischarge, EventGateOut, EventEmptyReturn, EventRailLoad, EventRailUnload} {
		if EventNames[c] == "" {
			t.Errorf("%s has no name", c)
		}
	}
	if len(EventNames) != 10 {
		t.Errorf("%d names for 10 codes", len(EventNames))
	}
}

func TestErrorBodyHasNullData(t *testing.T) {
	b, _ := json.Marshal(Response{Code: CodeNotFound, Message: "no data"})
	if string(b) != `{"code":"404","message":"no data","data":null}` {
		t.Fatalf("%s", b)
	}
}
