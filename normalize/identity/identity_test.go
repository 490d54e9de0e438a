package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/contrack/contrack/schemas/dcsa"
)

func TestNamespaceDerivation(t *testing.T) {
	want := uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://contrack.dev/ns/event-identity"))
	if Namespace != want {
		t.Fatalf("Namespace = %s, its documented derivation gives %s", Namespace, want)
	}
}

func TestEventID(t *testing.T) {
	id := EventID("MAEU", "3cecb101-7a1a-43a4-9d62-e88a131651e2")
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 5 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("EventID = %s: want an RFC 4122 version 5 UUID (%v)", id, err)
	}
	// Pinned: a change here changes every stored event id.
	if want := "16c6a73c-2342-5fdf-a419-8fd26bd8216c"; id != want {
		t.Errorf("EventID changed: got %s, want %s", id, want)
	}
	if first, again := EventID("MAEU", "x"), EventID("MAEU", "x"); first != again {
		t.Error("EventID is not deterministic")
	}
	for _, other := range []string{EventID("HLCU", "3cecb101-7a1a-43a4-9d62-e88a131651e2"), EventID("MAEU", "3cecb101-7a1a-43a4-9d62-e88a131651e3")} {
		if other == id {
			t.Error("different carrier or source id gave the same EventID")
		}
	}
	if EventID("AB", "CD") == EventID("ABC", "D") {
		t.Error("field boundary is ambiguous")
	}
}

func est() dcsa.Event {
	return dcsa.Event{
		EventID:                "ignored",
		EventCreatedDateTime:   "2024-06-28T11:00:00Z",
		EventType:              dcsa.EventTypeEquipment,
		EventClassifierCode:    dcsa.ClassifierEstimated,
		EventDateTime:          "2024-07-21T10:00:00+02:00",
		EquipmentEventTypeCode: "DISC",
		EquipmentReference:     "MRKU2356709",
		EmptyIndicatorCode:     "LADEN",
		EventLocation:          &dcsa.Location{UNLocationCode: "NLRTM"},
		TransportCall: &dcsa.TransportCall{
			TransportCallID: "TC-1", CarrierVoyageNumber: "426W", ModeOfTransport: "VESSEL",
			Vessel: &dcsa.Vessel{VesselIMONumber: "9778791"},
		},
	}
}

func TestEventIDFromFields(t *testing.T) {
	base := est()
	id := EventIDFromFields(base, "MAEU")
	if u, err := uuid.Parse(id); err != nil || u.Version() != 5 {
		t.Fatalf("EventIDFromFields = %s: want a version 5 UUID", id)
	}
	same := []struct {
		name string
		edit func(*dcsa.Event)
	}{
		{"estimate moved", func(e *dcsa.Event) { e.EventDateTime = "2024-07-23T18:00:00+02:00" }},
		{"re-created", func(e *dcsa.Event) { e.EventCreatedDateTime = "2024-06-30T00:00:00Z"; e.EventID = "other" }},
		{"other non-identifying fields", func(e *dcsa.Event) {
			e.ISOEquipmentCode = "45G1"
			e.DocumentReferences = []dcsa.DocumentReference{{DocumentReferenceType: "BKG", DocumentReferenceValue: "1"}}
		}},
		{"voyage under its 2.0.2 name", func(e *dcsa.Event) {
			tc := *e.TransportCall
			tc.CarrierVoyageNumber, tc.CarrierExportVoyageNumber = "", "426W"
			e.TransportCall = &tc
		}},
	}
	for _, c := range same {
		e := est()
		c.edit(&e)
		if got := EventIDFromFields(e, "MAEU"); got != id {
			t.Errorf("%s: id changed", c.name)
		}
	}
	differ := []struct {
		name string
		edit func(*dcsa.Event)
	}{
		{"classifier", func(e *dcsa.Event) { e.EventClassifierCode = dcsa.ClassifierPlanned }},
		{"type code", func(e *dcsa.Event) { e.EquipmentEventTypeCode = "LOAD" }},
		{"equipment", func(e *dcsa.Event) { e.EquipmentReference = "MSKU9070323" }},
		{"place", func(e *dcsa.Event) { e.EventLocation = &dcsa.Location{UNLocationCode: "BEANR"} }},
		{"voyage", func(e *dcsa.Event) {
			tc := *e.TransportCall
			tc.CarrierVoyageNumber = "428W"
			e.TransportCall = &tc
		}},
		{"vessel", func(e *dcsa.Event) {
			tc := *e.TransportCall
			tc.Vessel = &dcsa.Vessel{VesselIMONumber: "9321483"}
			e.TransportCall = &tc
		}},
		{"event type", func(e *dcsa.Event) {
			e.EventType, e.EquipmentEventTypeCode, e.TransportEventTypeCode = dcsa.EventTypeTransport, "", "DISC"
		}},
	}
	for _, c := range differ {
		e := est()
		c.edit(&e)
		if got := EventIDFromFields(e, "MAEU"); got == id {
			t.Errorf("%s: id unchanged", c.name)
		}
	}
	if EventIDFromFields(base, "HLCU") == id {
		t.Error("carrier: id unchanged")
	}

	act := est()
	act.EventClassifierCode = dcsa.ClassifierActual
	actID := EventIDFromFields(act, "MAEU")
	act.EventDateTime = "2024-07-21T08:00:00Z" // the same instant in UTC
	if EventIDFromFields(act, "MAEU") != actID {
		t.Error("ACT: the same instant written with another offset changed the id")
	}
	act.EventDateTime = "2024-07-21T08:00:01Z"
	if EventIDFromFields(act, "MAEU") == actID {
		t.Error("ACT: a different time kept the id (two gate-ins would collapse)")
	}
}

func TestContentHash(t *testing.T) {
	e := est()
	h := ContentHash(e)
	if len(h) != 64 {
		t.Fatalf("ContentHash = %q, want 64 hex digits", h)
	}
	meta := est()
	meta.EventID, meta.EventCreatedDateTime = "another", "2030-01-01T00:00:00Z"
	if ContentHash(meta) != h {
		t.Error("eventID or eventCreatedDateTime changed the hash")
	}
	moved := est()
	moved.EventDateTime = "2024-07-23T18:00:00+02:00"
	if ContentHash(moved) == h {
		t.Error("a moved estimate kept its hash")
	}
	deeper := est()
	tc := *deeper.TransportCall
	tc.Vessel = &dcsa.Vessel{VesselIMONumber: "9778791", VesselName: "Maersk Hangzhou"}
	deeper.TransportCall = &tc
	if ContentHash(deeper) == h {
		t.Error("a nested change kept the hash")
	}
	if e.EventID != "ignored" {
		t.Error("ContentHash modified its argument")
	}
}

// ContentHash hashes exactly json.Marshal's bytes (its pooled encoder must
// not change a hash ever issued): characters Marshal escapes included.
func TestContentHashIsTheHashOfMarshal(t *testing.T) {
	odd := est()
	odd.ChangeRemark = "<b>&amp;</b> \u2028 \u2029 \"quoted\" \x7f é"
	odd.TransportCall.Vessel = &dcsa.Vessel{VesselName: "A&B <Line>"}
	for _, e := range []dcsa.Event{est(), odd, {}} {
		bare := e
		bare.EventID, bare.EventCreatedDateTime = "", ""
		raw, err := json.Marshal(bare)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		for range 3 { // the pooled buffer reused
			if got := ContentHash(e); got != hex.EncodeToString(sum[:]) {
				t.Fatalf("ContentHash = %s, want the SHA-256 of %s", got, raw)
			}
		}
	}
}

func BenchmarkContentHash(b *testing.B) {
	e := est()
	b.ReportAllocs()
	for b.Loop() {
		ContentHash(e)
	}
}

func TestTransportCallID(t *testing.T) {
	seq := 7
	tc := dcsa.TransportCall{CarrierExportVoyageNumber: "426W", UNLocationCode: "NLRTM", TransportCallSequenceNumber: &seq, ModeOfTransport: "VESSEL", Vessel: &dcsa.Vessel{VesselIMONumber: "9778791"}}
	id := TransportCallID("MAEU", tc)
	nested := tc
	nested.UNLocationCode = ""
	nested.Location = &dcsa.Location{UNLocationCode: "NLRTM"}
	if TransportCallID("MAEU", nested) != id {
		t.Error("the place given in location instead of the flat field changed the id")
	}
	other := tc
	other.UNLocationCode = "BEANR"
	if TransportCallID("MAEU", other) == id {
		t.Error("another port gave the same call id")
	}
	if len(id) > 100 {
		t.Errorf("id %q exceeds transportCallID's maxLength 100", id)
	}
}
