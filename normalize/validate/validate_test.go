package validate

import (
	"errors"
	"github.com/contrack/contrack/reference"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

var refDir = reference.DCSA()

// lookup follows a slash-separated JSON pointer into a decoded document.
func lookup(t *testing.T, doc any, ptr string) any {
	t.Helper()
	v := doc
	for _, tok := range strings.Split(ptr, "/") {
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i >= len(c) {
				t.Fatalf("%s: bad index %q", ptr, tok)
			}
			v = c[i]
		default:
			t.Fatalf("%s: %q not found", ptr, tok)
		}
	}
	if v == nil {
		t.Fatalf("%s: not found", ptr)
	}
	return v
}

func loadDocs(t *testing.T) map[string]any {
	t.Helper()
	docs := map[string]any{}
	for _, f := range []string{"event_domain_v2.0.2.yaml", "dcsa_domain_v2.0.2.yaml"} {
		d, err := loadYAML(filepath.Join(refDir, f))
		if err != nil {
			t.Fatal(err)
		}
		docs[strings.SplitN(f, "_v", 2)[0]] = d
	}
	return docs
}

// TestEnumsMatchSpec keeps the hand-written code lists equal to the YAML.
func TestEnumsMatchSpec(t *testing.T) {
	docs := loadDocs(t)
	const ev, dc = "event_domain", "dcsa_domain"
	for _, c := range []struct {
		enum Enum
		doc  string
		ptrs []string // union of the enums found at these pointers
	}{
		{EventTypes, ev, []string{"components/schemas/baseEquipmentEvent/allOf/0/properties/eventType/enum", "components/schemas/baseTransportEvent/allOf/0/properties/eventType/enum"}},
		{EventClassifierCodes, ev, []string{"components/schemas/baseEquipmentEvent/allOf/1/properties/eventClassifierCode/enum", "components/schemas/baseTransportEvent/allOf/1/properties/eventClassifierCode/enum"}},
		{EquipmentEventTypeCodes, ev, []string{"components/schemas/equipmentEventTypeCode/enum"}},
		{TransportEventTypeCodes, ev, []string{"components/schemas/transportEventTypeCode/enum"}},
		{DocumentReferenceTypes, ev, []string{"components/schemas/documentReferences/items/properties/documentReferenceType/enum"}},
		{ReferenceTypes, ev, []string{"components/schemas/reference/allOf/1/properties/referenceType/enum"}},
		{ReferenceTypes, dc, []string{"components/schemas/referenceType/enum"}},
		{EmptyIndicatorCodes, dc, []string{"components/schemas/emptyIndicatorCode/enum"}},
		{ModesOfTransport, dc, []string{"components/schemas/modeOfTransport/enum"}},
		{FacilityTypeCodes, dc, []string{"components/schemas/facilityTypeCodeTRN/enum"}},
		{FacilityCodeListProviders, dc, []string{"components/schemas/facilityCodeListProvider/enum"}},
		{CarrierCodeListProviders, dc, []string{"components/schemas/vesselOperatorCarrierCodeListProvider/enum"}},
		{SealSources, dc, []string{"components/schemas/sealSource/enum"}},
		{SealTypes, dc, []string{"components/schemas/sealType/enum"}},
	} {
		t.Run(c.enum.Name+"@"+c.doc, func(t *testing.T) {
			var spec []string
			for _, p := range c.ptrs {
				for _, v := range lookup(t, docs[c.doc], p).([]any) {
					if s := strings.TrimSpace(v.(string)); !slices.Contains(spec, s) {
						spec = append(spec, s)
					}
				}
			}
			got := slices.Clone(c.enum.Values)
			slices.Sort(spec)
			slices.Sort(got)
			if !slices.Equal(spec, got) {
				t.Errorf("%s = %v, spec says %v", c.enum.Name, got, spec)
			}
		})
	}
}

// TestMaxLengthsMatchSpec keeps the maxLength constants equal to the YAML.
func TestMaxLengthsMatchSpec(t *testing.T) {
	docs := loadDocs(t)
	for _, c := range []struct {
		got  int
		doc  string
		name string // schema under components/schemas
	}{
		{MaxEquipmentReference, "dcsa_domain", "equipmentReference"},
		{MaxISOEquipmentCode, "dcsa_domain", "ISOEquipmentCode"},
		{MaxDelayReasonCode, "dcsa_domain", "delayReasonCode"},
		{MaxChangeRemark, "event_domain", "changeRemark"},
		{MaxTransportCallID, "dcsa_domain", "transportCallID"},
		{MaxTransportCallReference, "dcsa_domain", "transportCallReference"},
		{MaxPortVisitReference, "dcsa_domain", "portVisitReference"},
		{MaxCarrierServiceCode, "dcsa_domain", "carrierServiceCode"},
		{MaxVoyageNumber, "dcsa_domain", "carrierVoyageNumber"},
		{MaxVoyageNumber, "dcsa_domain", "exportVoyageNumber"},
		{MaxVoyageNumber, "dcsa_domain", "carrierExportVoyageNumber"},
		{MaxVoyageNumber, "dcsa_domain", "importVoyageNumber"},
		{MaxVoyageNumber, "dcsa_domain", "carrierImportVoyageNumber"},
		{MaxUNLocationCode, "dcsa_domain", "UNLocationCode"},
		{MaxFacilityCode, "dcsa_domain", "facilityCode"},
		{MaxOtherFacility, "dcsa_domain", "otherFacility"},
		{MaxLocationName, "dcsa_domain", "locationName"},
		{MaxLatitude, "dcsa_domain", "latitude"},
		{MaxLongitude, "dcsa_domain", "longitude"},
		{MaxVesselIMONumber, "dcsa_domain", "vesselIMONumber"},
		{MaxVesselName, "dcsa_domain", "vesselName"},
		{MaxVesselFlag, "dcsa_domain", "vesselFlag"},
		{MaxVesselCallSignNumber, "dcsa_domain", "vesselCallSignNumber"},
		{MaxVesselOperatorCarrierCode, "dcsa_domain", "vesselOperatorCarrierCode"},
		{MaxReferenceValue, "dcsa_domain", "referenceValue"},
		{MaxSealNumber, "dcsa_domain", "sealNumber"},
		{MaxCarrierCode, "dcsa_domain", "carrierCode"},
		{MaxAddressName, "dcsa_domain", "addressName"},
		{MaxStreet, "dcsa_domain", "streetName"},
		{MaxStreetNumber, "dcsa_domain", "streetNumber"},
		{MaxFloor, "dcsa_domain", "floor"},
		{MaxPostCode, "dcsa_domain", "postCode"},
		{MaxCity, "dcsa_domain", "cityName"},
		{MaxStateRegion, "dcsa_domain", "stateRegion"},
		{MaxCountry, "dcsa_domain", "country"},
	} {
		spec := lookup(t, docs[c.doc], "components/schemas/"+c.name+"/maxLength")
		if s, _ := spec.(interface{ String() string }); s == nil || s.String() != strconv.Itoa(c.got) {
			t.Errorf("%s: maxLength %d, spec says %v", c.name, c.got, spec)
		}
	}
}

func TestTimestamp(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"2021-01-09T14:12:56+01:00", "2021-01-09T14:12:56+01:00", ""},
		{"2021-01-09T14:12:56Z", "2021-01-09T14:12:56Z", ""},
		{"2021-01-09T14:12:56z", "2021-01-09T14:12:56Z", ""},
		{"2021-01-09t14:12:56Z", "2021-01-09T14:12:56Z", ""},
		{"2021-01-09 14:12:56Z", "2021-01-09T14:12:56Z", ""},
		{"2021-01-09T14:12:56+00:00", "2021-01-09T14:12:56Z", ""},
		{"2021-01-09T14:12:56-00:00", "2021-01-09T14:12:56Z", ""},
		{"2021-01-09T14:12:56+0530", "2021-01-09T14:12:56+05:30", ""},
		{"2019-11-12T07:41:00+08:30", "2019-11-12T07:41:00+08:30", ""},
		{"2021-01-09T14:12:56.123Z", "2021-01-09T14:12:56.123Z", ""},
		{"2021-01-09T14:12:56.120Z", "2021-01-09T14:12:56.12Z", ""},
		{"2021-01-09T14:12:56.000-03:00", "2021-01-09T14:12:56-03:00", ""},
		{"2021-01-09T14:12:56,5Z", "2021-01-09T14:12:56.5Z", ""},
		{"2021-01-09T14:12:56.123456789+01:00", "2021-01-09T14:12:56.123456789+01:00", ""},
		{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z", ""},
		{"2021-01-09T14:12:56", "", "has no UTC offset"},
		{"2021-01-09T14:12:56.5", "", "has no UTC offset"},
		{"2021-01-09", "", "a date without time"},
		{"2021 01 01 14:12:56", "", "want YYYY-MM-DD"},
		{"2019/11/12 07:41:00 +08:30", "", "want YYYY-MM-DD"},
		{"2021-01-09T14:12Z", "", "too short"},
		{"2021-01-09T14:12:56+1", "", "want a UTC offset"},
		{"2021-01-09T14:12:56+24:00", "", "out of range"},
		{"2021-01-09T14:12:56 +01:00", "", "want Z or ±hh:mm"},
		{"2021-01-09T14:12:56Zjunk", "", "unexpected text"},
		{"2021-01-09T14:12:56.Z", "", "fractional seconds"},
		{"2021-01-09T14:12:56.1234567890Z", "", "fractional seconds"},
		{"2023-02-29T00:00:00Z", "", "out of range"},
		{"2021-13-01T00:00:00Z", "", "out of range"},
		{"2021-01-01T24:00:00Z", "", "out of range"},
		{"2016-12-31T23:59:60Z", "", "out of range"},
		{"", "", "too short"},
	} {
		got, tm, err := Timestamp(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Timestamp(%q) error = %v, want …%s…", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Timestamp(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if back, err := time.Parse(time.RFC3339Nano, got); err != nil || !back.Equal(tm) {
			t.Errorf("Timestamp(%q) = %q does not round-trip to %v: %v", c.in, got, tm, err)
		}
	}
}

func TestEventTimes(t *testing.T) {
	at := func(s string) time.Time {
		_, tm, err := Timestamp(s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	recv := at("2024-07-01T00:00:00Z")
	for _, c := range []struct {
		created, happened, cls string
		recv                   time.Time
		field                  string // "" for plausible
	}{
		{"2024-06-01T00:00:00Z", "2024-05-31T00:00:00Z", "ACT", recv, ""},
		{"2024-06-01T00:00:00Z", "2024-06-01T20:00:00Z", "ACT", recv, ""}, // within skew
		{"2024-06-01T00:00:00Z", "2024-06-03T00:00:00Z", "ACT", recv, "eventDateTime"},
		{"2024-06-01T00:00:00Z", "2030-06-03T00:00:00Z", "EST", recv, ""},
		{"2024-06-01T00:00:00Z", "2030-06-03T00:00:00Z", "PLN", recv, ""},
		{"1999-01-01T14:12:56Z", "2019-11-12T07:41:00+08:30", "ACT", recv, "eventCreatedDateTime"},
		{"2024-06-01T00:00:00Z", "1970-01-01T00:00:00Z", "EST", recv, "eventDateTime"},
		{"2099-01-01T14:12:56Z", "2019-11-12T07:41:00+08:30", "ACT", recv, "eventCreatedDateTime"},
		{"2099-01-01T14:12:56Z", "2019-11-12T07:41:00+08:30", "ACT", time.Time{}, ""}, // no ReceivedAt, no bound
		{"2024-07-01T20:00:00Z", "2024-07-01T10:00:00Z", "ACT", recv, ""},             // within skew of receipt
	} {
		te := EventTimes(at(c.created), at(c.happened), c.cls, c.recv)
		switch {
		case c.field == "" && te != nil:
			t.Errorf("%+v: unexpected %v", c, te)
		case c.field != "" && (te == nil || te.Field != c.field):
			t.Errorf("%+v: got %v, want a %s error", c, te, c.field)
		}
	}
}

func validEquipment() dcsa.Event {
	seq := 2
	return dcsa.Event{
		EventID:                "3cecb101-7a1a-43a4-9d62-e88a131651e4",
		EventCreatedDateTime:   "2021-01-09T14:12:56Z",
		EventType:              "EQUIPMENT",
		EventClassifierCode:    "EST",
		EventDateTime:          "2019-11-12T07:41:00+08:30",
		EquipmentEventTypeCode: "LOAD",
		EquipmentReference:     "APZU4812090",
		ISOEquipmentCode:       "22GP",
		EmptyIndicatorCode:     "EMPTY",
		EventLocation:          &dcsa.Location{LocationName: "Eiffel Tower", UNLocationCode: "FRPAR"},
		TransportCall: &dcsa.TransportCall{
			TransportCallID: "123e4567-e89b-12d3-a456-426614174000", CarrierVoyageNumber: "2103S",
			TransportCallSequenceNumber: &seq, ModeOfTransport: "VESSEL",
			Location: &dcsa.Location{UNLocationCode: "FRPAR"},
			Vessel:   &dcsa.Vessel{VesselIMONumber: "9321483", VesselName: "King of the Seas"},
		},
		DocumentReferences: []dcsa.DocumentReference{{DocumentReferenceType: "BKG", DocumentReferenceValue: "ABC123123123"}},
		References:         []dcsa.Reference{{ReferenceType: "EQ", ReferenceValue: "APZU4812090"}},
		Seals:              []dcsa.Seal{{SealNumber: "S1", SealSource: "CUS", SealType: "WIR"}},
	}
}

func validTransport() dcsa.Event {
	e := validEquipment()
	e.EventType, e.EventClassifierCode = "TRANSPORT", "ACT"
	e.EquipmentEventTypeCode, e.EmptyIndicatorCode, e.ISOEquipmentCode, e.EventLocation, e.Seals = "", "", "", nil, nil
	e.TransportEventTypeCode, e.DelayReasonCode, e.ChangeRemark = "ARRI", "WEA", "Bad weather"
	e.FacilityTypeCode = "POTE"
	return e
}

// brokenEvent is an invalid event; schemaSees is false where the fault is a
// required string left empty, which the schema cannot see (the Go types
// always marshal required fields, so "" is present) and Structural must.
type brokenEvent struct {
	e          dcsa.Event
	schemaSees bool
}

func brokenEvents() map[string]brokenEvent {
	m := map[string]brokenEvent{}
	add := func(name string, schemaSees bool, base func() dcsa.Event, breakIt func(e *dcsa.Event, tc *dcsa.TransportCall)) {
		e := base()
		tc := *e.TransportCall // a copy per case: cases must not share it
		e.TransportCall = &tc
		breakIt(&e, &tc)
		m[name] = brokenEvent{e, schemaSees}
	}
	add("unknown equipment code", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.EquipmentEventTypeCode = "FOO" })
	add("no emptyIndicatorCode", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.EmptyIndicatorCode = "" })
	add("date-time without zone", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.EventDateTime = "2019-11-12T07:41:00" })
	add("eventID not a uuid", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.EventID = "not-a-uuid" })
	add("transport without transportCall", true, validTransport, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.TransportCall = nil })
	add("transport code OMIT", true, validTransport, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.TransportEventTypeCode = "OMIT" })
	add("equipmentReference too long", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.EquipmentReference = "APZU4812090-12345" })
	add("document reference type", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) {
		e.DocumentReferences = []dcsa.DocumentReference{{DocumentReferenceType: "BOL", DocumentReferenceValue: "X"}}
	})
	add("seal without type", true, validEquipment, func(e *dcsa.Event, _ *dcsa.TransportCall) { e.Seals = []dcsa.Seal{{SealNumber: "S1"}} })
	add("transportCall.location without anyOf", true, validTransport, func(_ *dcsa.Event, tc *dcsa.TransportCall) {
		tc.Location = &dcsa.Location{LocationName: "Quay 7"}
	})
	add("modeOfTransport AIR", true, validTransport, func(_ *dcsa.Event, tc *dcsa.TransportCall) { tc.ModeOfTransport = "AIR" })
	add("no transportCallID", false, validTransport, func(_ *dcsa.Event, tc *dcsa.TransportCall) { tc.TransportCallID = "" })
	add("vessel without IMO", false, validTransport, func(_ *dcsa.Event, tc *dcsa.TransportCall) {
		tc.Vessel = &dcsa.Vessel{VesselName: "nameless"}
	})
	return m
}

func TestValidator(t *testing.T) {
	v, err := New(refDir)
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]dcsa.Event{"equipment": validEquipment(), "transport": validTransport()} {
		if err := v.Validate(e); err != nil {
			t.Errorf("valid %s event rejected: %v", name, err)
		}
	}
	for name, b := range brokenEvents() {
		if err := v.Validate(b.e); (err != nil) != b.schemaSees {
			t.Errorf("%s: Validate = %v, want an error: %v", name, err, b.schemaSees)
		}
	}
	e := validEquipment()
	e.EventType = "SHIPMENT"
	if err := v.Validate(e); !errors.Is(err, ErrUnknownEventType) {
		t.Errorf("SHIPMENT: got %v, want ErrUnknownEventType", err)
	}
	if err := v.ValidateJSON([]byte(`{"eventType":`)); err == nil {
		t.Error("malformed JSON accepted")
	}
}

func TestStructural(t *testing.T) {
	for name, e := range map[string]dcsa.Event{"equipment": validEquipment(), "transport": validTransport()} {
		if err := Structural(e); err != nil {
			t.Errorf("valid %s event rejected: %v", name, err)
		}
	}
	for name, b := range brokenEvents() {
		if err := Structural(b.e); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := New(t.TempDir()); err == nil {
		t.Error("New on an empty directory succeeded")
	}
}

func TestDomainFile(t *testing.T) {
	for url, want := range map[string]string{
		"https://api.swaggerhub.com/domains/dcsaorg/LOCATION_DOMAIN/2.0.2":      "dcsa_location_v2.0.2.yaml",
		"https://api.swaggerhub.com/domains/dcsaorg/DOCUMENTATION_DOMAIN/1.0.4": "documentation_domain_v1.0.4.yaml",
		"https://api.swaggerhub.com/domains/dcsaorg/DCSA_DOMAIN/2.0.2":          "dcsa_domain_v2.0.2.yaml",
		"https://example.com/x": "",
		"https://api.swaggerhub.com/domains/dcsaorg/UNKNOWN/1.0.0":         "",
		"https://api.swaggerhub.com/domains/dcsaorg/DCSA_DOMAIN/../../etc": "",
	} {
		got, err := domainFile(url)
		if (want == "") != (err != nil) || got != want {
			t.Errorf("domainFile(%s) = %q, %v; want %q", url, got, err, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 3, "abc"},
		{"København", 3, "Køb"},
		{"宁波宁波", 2, "宁波"},
	} {
		if got := Truncate(c.in, c.max); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
