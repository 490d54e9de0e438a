package normalize_test

import (
	"reflect"
	"testing"

	"github.com/contrack/contrack/normalize"
)

type memberDoc struct {
	Events []struct {
		EventID string `json:"eventID"`
		Call    *struct {
			UNLocationCode string `json:"UNLocationCode,omitempty"`
		} `json:"transportCall"`
	} `json:"events"`
}

// MemberCase names every member spelt in another case, with its path, and
// nothing else: not string values, not the names spelt as the type does.
func TestMemberCase(t *testing.T) {
	names := normalize.MemberNames(memberDoc{})
	raw := []byte(`{"events":[{"eventID":"a","transportCall":{"UNLocationCode":"NLRTM"}},` +
		`{"eventId":"eventId:","note":"\"unLocationCode\":","transportCall": {"unLocationCode" : "NLRTM"}}]}`)
	got := normalize.MemberCase(raw, names)
	want := []normalize.Repair{
		{Kind: normalize.RepairMemberCase, Path: "events[1].eventId"},
		{Kind: normalize.RepairMemberCase, Path: "events[1].transportCall.unLocationCode"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MemberCase = %+v\nwant %+v", got, want)
	}
	if names["unlocationcode"] != "UNLocationCode" || names["eventid"] != "eventID" {
		t.Errorf("MemberNames = %v", names)
	}
}
