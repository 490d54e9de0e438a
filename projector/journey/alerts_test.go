package journey

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/contrack/contrack/schemas"
)

// alertState is a container tracking with a subscription.
func alertState() *State {
	st := &State{}
	st.ApplySubscription(schemas.SubscriptionChanged{TrackingID: "trk", AccountID: "a", SCAC: "ZIMU",
		IdentifierKind: "container", Identifier: "ZIMU1234567", TrackingOpen: true})
	return st
}

// apply applies events given as raw JSON (id taken from eventID), each a
// new version.
func apply(st *State, evs ...string) {
	for i, e := range evs {
		var head struct {
			EventID string `json:"eventID"`
		}
		if err := json.Unmarshal([]byte(e), &head); err != nil {
			panic(fmt.Sprintf("a test event that is no JSON: %s", e)) // a fixture's mistake
		}
		st.ApplyEvent(schemas.EventRecord{TrackingID: "trk", AccountID: "a", SCAC: "ZIMU", EventID: head.EventID,
			ContentHash: fmt.Sprintf("%d-%d", st.Version, i), Event: []byte(e)})
		st.Version++
	}
}

func equip(id, code, cls, at, place string) string {
	return fmt.Sprintf(`{"eventID":"%s","eventType":"EQUIPMENT","eventClassifierCode":"%s","eventDateTime":"%s","eventCreatedDateTime":"%s","equipmentEventTypeCode":"%s","equipmentReference":"ZIMU1234567","emptyIndicatorCode":"LADEN","eventLocation":{"UNLocationCode":"%s"}}`,
		id, cls, at, at, code, place)
}

func transport(id, code, cls, at, created, place, imo, voyage string) string {
	return fmt.Sprintf(`{"eventID":"%s","eventType":"TRANSPORT","eventClassifierCode":"%s","eventDateTime":"%s","eventCreatedDateTime":"%s","transportEventTypeCode":"%s","transportCall":{"transportCallID":"tc","UNLocationCode":"%s","modeOfTransport":"VESSEL","carrierExportVoyageNumber":"%s","vessel":{"vesselIMONumber":"%s","vesselName":"V%s"}}}`,
		id, cls, at, created, code, place, voyage, imo, imo)
}

func kinds(as []schemas.Alert) []string {
	var out []string
	for _, a := range as {
		s := a.AlertType
		if a.ChangeMinutes != nil {
			s += fmt.Sprintf("/%d", *a.ChangeMinutes)
		}
		out = append(out, s)
	}
	return out
}

// The journey's first events set the baseline; each later change raises
// its alert once, with a stable id; the same events again raise nothing.
func TestNewAlerts(t *testing.T) {
	st := alertState()
	if got := st.NewAlerts(Derive(st)); got != nil {
		t.Fatalf("alerts before any event: %v", got)
	}
	// Subscribed mid-journey: loaded at Shanghai, the departure planned on
	// vessel 9000001 voyage 1W, an ETA at Los Angeles already revised once.
	apply(st,
		equip("load", "LOAD", "ACT", "2026-11-01T10:00:00+08:00", "CNSHA"),
		transport("depa", "DEPA", "EST", "2026-11-02T10:00:00+08:00", "2026-11-01T00:00:00Z", "CNSHA", "9000001", "1W"),
		transport("eta", "ARRI", "EST", "2026-11-20T08:00:00-08:00", "2026-11-01T00:00:00Z", "USLAX", "9000001", "1W"),
		equip("disc-pod", "DISC", "EST", "2026-11-20T12:00:00-08:00", "USLAX"),
	)
	apply(st, transport("eta", "ARRI", "EST", "2026-11-20T10:00:00-08:00", "2026-11-01T06:00:00Z", "USLAX", "9000001", "1W"))
	if got := st.NewAlerts(Derive(st)); got != nil {
		t.Fatalf("the first events are the baseline, yet raised %v", kinds(got))
	}
	// Rolled to another vessel before leaving; the ETA slips 12 h, then 1 h.
	apply(st, transport("depa", "DEPA", "EST", "2026-11-03T10:00:00+08:00", "2026-11-01T12:00:00Z", "CNSHA", "9000002", "2W"))
	apply(st, transport("eta", "ARRI", "EST", "2026-11-20T22:00:00-08:00", "2026-11-01T12:00:00Z", "USLAX", "9000002", "2W"))
	apply(st, transport("eta", "ARRI", "EST", "2026-11-20T23:00:00-08:00", "2026-11-01T18:00:00Z", "USLAX", "9000002", "2W"))
	got := st.NewAlerts(Derive(st))
	if want := []string{"ETA_CHANGED/720", "ETA_CHANGED/60", "ROLLED"}; !slices.Equal(kinds(got), want) {
		t.Fatalf("alerts %v, want %v", kinds(got), want)
	}
	roll := got[2]
	if roll.PreviousVessel.VesselIMONumber != "9000001" || roll.PreviousVessel.Voyage != "1W" || roll.NewVessel.VesselIMONumber != "9000002" ||
		roll.NewVessel.Voyage != "2W" || roll.UNLocationCode != "CNSHA" || roll.EquipmentReference != "ZIMU1234567" {
		t.Errorf("ROLLED: %+v %+v %+v", roll, roll.PreviousVessel, roll.NewVessel)
	}
	if eta := got[0]; eta.PreviousDateTime != "2026-11-20T10:00:00-08:00" || eta.NewDateTime != "2026-11-20T22:00:00-08:00" || eta.UNLocationCode != "USLAX" {
		t.Errorf("ETA_CHANGED: %+v", eta)
	}
	if again := st.NewAlerts(Derive(st)); again != nil {
		t.Fatalf("raised again: %v", kinds(again))
	}
	// Departs (nothing rolls any more), arrives, discharged; customs hold,
	// release, available for pick-up.
	apply(st,
		transport("atd", "DEPA", "ACT", "2026-11-03T11:00:00+08:00", "2026-11-03T03:00:00Z", "CNSHA", "9000002", "2W"),
		transport("ata", "ARRI", "ACT", "2026-11-20T23:30:00-08:00", "2026-11-21T08:00:00Z", "USLAX", "9000002", "2W"),
		equip("disc", "DISC", "ACT", "2026-11-21T03:00:00-08:00", "USLAX"),
		equip("hold", "CUSI", "ACT", "2026-11-21T05:00:00-08:00", "USLAX"),
	)
	got = st.NewAlerts(Derive(st))
	if want := []string{"ARRIVED", "HOLD_PLACED"}; !slices.Equal(kinds(got), want) {
		t.Fatalf("alerts %v, want %v", kinds(got), want)
	}
	apply(st, equip("release", "CUSR", "ACT", "2026-11-23T09:00:00-08:00", ""), equip("avail", "AVPU", "ACT", "2026-11-23T11:00:00-08:00", "USLAX"))
	res := Derive(st)
	got = st.NewAlerts(res)
	if want := []string{"AVAILABLE_FOR_PICKUP", "HOLD_RELEASED"}; !slices.Equal(kinds(got), want) {
		t.Fatalf("alerts %v, want %v", kinds(got), want)
	}
	f := res[0].Facts
	if f.UNLocationCode != "USLAX" || f.DischargedDateTime != "2026-11-21T03:00:00-08:00" || f.AvailableDateTime != "2026-11-23T11:00:00-08:00" ||
		len(f.Holds) != 1 || f.Holds[0].HoldCode != "CUSI" || f.Holds[0].ReleasedDateTime != "2026-11-23T09:00:00-08:00" {
		t.Errorf("facts %+v", f)
	}
	for _, e := range res[0].SourceEvents {
		var head struct {
			EventID string `json:"eventID"`
		}
		if err := json.Unmarshal(e, &head); err != nil {
			t.Fatal(err)
		}
		if slices.Contains([]string{"hold", "release", "avail"}, head.EventID) {
			t.Errorf("a terminal event among the source events: %s", e)
		}
	}
	// The ids are stable: the same journey from scratch gives the same ones.
	ids := func(as []schemas.Alert) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.AlertID)
		}
		return out
	}
	if a, b := ids(st.candidates(res)), ids(st.candidates(Derive(st))); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("ids differ: %v %v", a, b)
	}
	// The state's header keeps what was raised.
	h, _ := st.MarshalHeader()
	var back State
	if err := json.Unmarshal(h, &back); err != nil || !back.AlertsBaseline || len(back.Alerted) != len(st.Alerted) || back.Passage == nil {
		t.Errorf("header %s", h)
	}
}
