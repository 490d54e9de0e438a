package schemas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/schemas/dcsa"
)

// sampleRecords are records as the normaliser emits them, with realistic
// DCSA equipment and transport events.
func sampleRecords(t testing.TB) [][]byte {
	t.Helper()
	seq := 2
	gateIn := dcsa.Event{
		EventID: "e6b1f0c2-5f7a-4a8e-9a53-1d2c3b4a5f60", EventCreatedDateTime: "2026-03-14T09:26:53.589Z",
		EventType: dcsa.EventTypeEquipment, EventClassifierCode: dcsa.ClassifierActual, EventDateTime: "2026-03-14T08:10:00+01:00",
		EquipmentEventTypeCode: "GTIN", EquipmentReference: "MSKU1234565", ISOEquipmentCode: "45G1", EmptyIndicatorCode: "LADEN",
		EventLocation:      &dcsa.Location{LocationName: "APM Terminals Maasvlakte II", UNLocationCode: "NLRTM", FacilityCode: "APMII", FacilityCodeListProvider: "SMDG"},
		DocumentReferences: []dcsa.DocumentReference{{DocumentReferenceType: dcsa.DocBooking, DocumentReferenceValue: "231456789"}, {DocumentReferenceType: dcsa.DocTransportDoc, DocumentReferenceValue: "MAEU231456789"}},
		References:         []dcsa.Reference{{ReferenceType: "EQ", ReferenceValue: "MSKU1234565"}},
		Seals:              []dcsa.Seal{{SealNumber: "ML-1234567", SealSource: "CAR", SealType: "BLT"}},
	}
	departure := dcsa.Event{
		EventID: "0d9f2a8e-3c41-4b7e-8f15-6a7b8c9d0e1f", EventCreatedDateTime: "2026-03-15T02:00:00Z",
		EventType: dcsa.EventTypeTransport, EventClassifierCode: dcsa.ClassifierEstimated, EventDateTime: "2026-03-16T22:00:00Z",
		TransportEventTypeCode: "DEPA", DelayReasonCode: "WEA", ChangeRemark: "Späte Ankunft – Sturm über der Nordsee",
		TransportCall: &dcsa.TransportCall{
			TransportCallID: "NLRTM-APMII-412W", CarrierServiceCode: "AE7", CarrierExportVoyageNumber: "412W", CarrierImportVoyageNumber: "412W",
			TransportCallSequenceNumber: &seq, UNLocationCode: "NLRTM", FacilityCode: "APMII", FacilityCodeListProvider: "SMDG", ModeOfTransport: "VESSEL",
			Vessel: &dcsa.Vessel{VesselIMONumber: "9778791", VesselName: "MAERSK MC-KINNEY MOLLER", VesselFlag: "DK", VesselCallSignNumber: "OWIZ2"},
		},
		DocumentReferences: []dcsa.DocumentReference{{DocumentReferenceType: dcsa.DocBooking, DocumentReferenceValue: "231456789"}},
	}
	var out [][]byte
	for i, ev := range []dcsa.Event{gateIn, departure} {
		body, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		rec := EventRecord{
			TrackingID: "trk_01HV6Z6Q9W3Y8K2M4N5P7R9S1T", AccountID: "acct_01HV6Z5B2C3D4E5F6G7H8J9K0M", Env: EnvLive, SCAC: "MAEU",
			EventID: ev.EventID, ContentHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Update: i == 1,
			Event: body, SourceID: "raw_01HV6Z7A1B2C3D4E5F6G7H8J9K", EmittedAt: time.Date(2026, 3, 15, 2, 0, 0, 123456789, time.UTC),
		}
		v, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// edgeRecords are shapes the fast path must get right or hand over.
var edgeRecords = []string{
	``,
	`{}`,
	` {} `,
	`null`,
	`[]`,
	`"x"`,
	`{"trackingId":"t"}` + "\n",
	"\t{ \"trackingId\" : \"t\" ,\r\n\"event\" : { \"a\" : [ 1 , 2 ] } }\n",
	`{"trackingId":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}`,
	`{"trackingId":"\ud83d"}`,
	`{"trackingId":"\udc00\ud83d x"}`,
	`{"trackingId":"naïve 東京 😀"}`,
	"{\"trackingId\":\"bad \xff\xfe utf8\"}",
	"{\"trackingId\":\"surrogate \xed\xa0\x80\"}",
	"{\"trackingId\":\"cut \xe6\x9d\"}",
	"{\"trackingId\":\"tab\there\"}",
	"{\"trackingId\":\"del\x7f\"}",
	`{"trackingId":null,"update":null,"event":null,"emittedAt":null}`,
	`{"event":null}`,
	`{"trackingId":"a","trackingId":"b"}`,
	`{"event":{"a":1},"event":{"b":2}}`,
	`{"update":true,"update":false}`,
	`{"emittedAt":"2026-01-01T00:00:00Z","emittedAt":"2027-01-01T00:00:00Z"}`,
	`{"TrackingID":"a"}`,
	`{"trackingid":"a","trackingId":"b"}`,
	`{"trackingId":"b","TRACKINGID":"a"}`,
	`{"SCAC":"MAEU","Scac":"HLCU"}`,
	`{"ſcac":"MAEU"}`,
	`{"unknown":{"x":[1,2,{"y":null}]},"scac":"MAEU"}`,
	`{"scac":"MAEU","extra":1e400}`,
	`{"trackingId":"t"} x`,
	`{"trackingId":"t"}{}`,
	`{"trackingId":"t"`,
	`{"trackingId":"t",}`,
	`{"trackingId":"t" "scac":"s"}`,
	`{"trackingId":1}`,
	`{"update":"true"}`,
	`{"update":1}`,
	`{"update":truex}`,
	`{"update":tru}`,
	`{"event":[1,2,3]}`,
	`{"event":"x"}`,
	`{"event":12.5e3}`,
	`{"event":true}`,
	`{"event":[[[]],{"a":[{}]}]}`,
	`{"event":{"a":[[[{"b":[]}]]],"c":"}]\"{["}}`,
	`{"event":{"a":1]}`,
	`{"event":{"a":1}]`,
	`{"event":{"a":"\u00zz"}}`,
	`{"event":{"a":01}}`,
	`{"event":{"a":1,}}`,
	`{"event":{"a":"<&>"} }`,
	`{"event":{ }}`,
	`{"event":{`,
	`{"emittedAt":"2026-03-15T02:00:00.123456789Z"}`,
	`{"emittedAt":"2026-03-15T02:00:00+05:30"}`,
	`{"emittedAt":"2026-03-15T02:00:00-08:00"}`,
	`{"emittedAt":"2026-03-15T02:00:00+01:00"}`,
	`{"emittedAt":"2026-03-15 02:00:00Z"}`,
	`{"emittedAt":"2026-03-15T02:00:00\u005a"}`,
	`{"emittedAt":"2026-13-15T02:00:00Z"}`,
	`{"emittedAt":""}`,
	`{"emittedAt":1}`,
	"\xef\xbb\xbf{}",
	"{\"trackingId\":\"t\"}\x00",
}

// sameAsUnmarshal fails t unless DecodeEventRecord gives what json.Unmarshal
// gives into a zero record.
func sameAsUnmarshal(t *testing.T, data []byte) {
	t.Helper()
	var want, got EventRecord
	wantErr := json.Unmarshal(data, &want)
	got = EventRecord{TrackingID: "stale", Update: true, Event: json.RawMessage(`{"stale":1}`), EmittedAt: time.Now()}
	gotErr := DecodeEventRecord(data, &got)
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%q: DecodeEventRecord error %v, json.Unmarshal error %v", data, gotErr, wantErr)
	}
	// Both time values come from Time.UnmarshalJSON on the same bytes, so
	// even their locations are deeply equal.
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", data, got, want)
	}
}

func FuzzDecodeEventRecord(f *testing.F) {
	for _, v := range sampleRecords(f) {
		f.Add(v)
		f.Add(v[:len(v)/2])
		f.Add(append(append([]byte(nil), v...), " \n"...))
	}
	for _, s := range edgeRecords {
		f.Add([]byte(s))
	}
	f.Fuzz(sameAsUnmarshal)
}

func TestDecodeEventRecordSameAsUnmarshal(t *testing.T) {
	for _, v := range sampleRecords(t) {
		sameAsUnmarshal(t, v)
	}
	for _, s := range edgeRecords {
		sameAsUnmarshal(t, []byte(s))
	}
}

func TestDecodeEventRecordFastPath(t *testing.T) {
	for _, v := range sampleRecords(t) {
		var indented bytes.Buffer
		if err := json.Indent(&indented, v, "\t", "  "); err != nil {
			t.Fatal(err)
		}
		var rec, rec2 EventRecord
		if !decodeSimpleRecord(v, &rec) || !decodeSimpleRecord(append(indented.Bytes(), "\r\n"...), &rec2) {
			t.Errorf("a record as json.Marshal writes it takes the slow path: %s", v)
		}
	}
	for _, s := range []string{
		`{"trackingId":"a\"b"}`,                // escapes
		`{"TrackingID":"a"}`,                   // another spelling
		`{"trackingId":null}`,                  // null
		`{"trackingId":"a","trackingId":"b"}`,  // duplicate
		`{"other":"a"}`,                        // unknown key
		`{"event":[1]}`,                        // not an object
		"{\"trackingId\":\"\xff\"}",            // invalid UTF-8
		`{"emittedAt":"2026-13-01T00:00:00Z"}`, // an error for Unmarshal to give
	} {
		var rec EventRecord
		if decodeSimpleRecord([]byte(s), &rec) {
			t.Errorf("%s takes the fast path", s)
		}
	}
}

func TestDecodeEventRecordEdgeCases(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     EventRecord
	}{
		{"escapes", `{"trackingId":"a\"b\\c\u00e9\ud83d\ude00\n"}`, EventRecord{TrackingID: "a\"b\\cé😀\n"}},
		{"lone surrogate", `{"trackingId":"\ud83dx"}`, EventRecord{TrackingID: "\ufffdx"}},
		{"invalid UTF-8", "{\"trackingId\":\"a\xffb\"}", EventRecord{TrackingID: "a\ufffdb"}},
		{"other case", `{"TRACKINGID":"a","Scac":"MAEU"}`, EventRecord{TrackingID: "a", SCAC: "MAEU"}},
		{"last duplicate wins", `{"scac":"A","SCAC":"B","event":{"a":1},"event":{"b":2}}`, EventRecord{SCAC: "B", Event: json.RawMessage(`{"b":2}`)}},
		{"unknown keys", `{"x":[{"y":1}],"env":"live"}`, EventRecord{Env: EnvLive}},
		{"nulls", `{"trackingId":null,"update":null,"emittedAt":null}`, EventRecord{}},
		{"null event is kept", `{"event":null}`, EventRecord{Event: json.RawMessage(`null`)}},
		{"raw event bytes", `{"event": { "a" : [1, 2] } }`, EventRecord{Event: json.RawMessage(`{ "a" : [1, 2] }`)}},
		{"array event", `{"event":[1]}`, EventRecord{Event: json.RawMessage(`[1]`)}},
		{"time", `{"emittedAt":"2026-03-15T02:00:00.5Z","update":true}`, EventRecord{Update: true, EmittedAt: time.Date(2026, 3, 15, 2, 0, 0, 5e8, time.UTC)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec EventRecord
			if err := DecodeEventRecord([]byte(c.in), &rec); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rec, c.want) {
				t.Errorf("got %+v, want %+v", rec, c.want)
			}
			sameAsUnmarshal(t, []byte(c.in))
		})
	}
	for _, in := range []string{
		`{"trackingId":"t"} x`, `{"trackingId":"t"}{}`, `{"trackingId":"t"`, `{"event":{"a":1]}`,
		`{"event":{"a":01}}`, `{"update":"true"}`, `{"emittedAt":"2026-13-15T02:00:00Z"}`, `[]`, ``,
	} {
		var rec EventRecord
		if err := DecodeEventRecord([]byte(in), &rec); err == nil {
			t.Errorf("%s: no error", in)
		}
		sameAsUnmarshal(t, []byte(in))
	}
}

// TestDecodeEventRecordDeepEvent checks the nesting limit, which
// json.Unmarshal counts from the record, not the event.
func TestDecodeEventRecordDeepEvent(t *testing.T) {
	for _, depth := range []int{maxEventDepth, maxEventDepth + 1, 9998, 9999, 10000} {
		ev := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
		sameAsUnmarshal(t, []byte(`{"scac":"MAEU","event":`+ev+`}`))
	}
}

func TestDecodeEventRecordCopies(t *testing.T) {
	v := sampleRecords(t)[0]
	var rec EventRecord
	if err := DecodeEventRecord(v, &rec); err != nil {
		t.Fatal(err)
	}
	want := string(rec.Event)
	for i := range v {
		v[i] = 'x'
	}
	if string(rec.Event) != want {
		t.Error("the event shares memory with the input")
	}
}

func BenchmarkDecodeEventRecord(b *testing.B) {
	v := sampleRecords(b)[0]
	b.Logf("record %d bytes", len(v))
	b.Run("unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(v)))
		for b.Loop() {
			var rec EventRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(v)))
		for b.Loop() {
			var rec EventRecord
			if err := DecodeEventRecord(v, &rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// appendSameAsMarshal checks AppendEventRecord against json.Marshal (see
// appendsAsMarshal); a record without an event may give false.
func appendSameAsMarshal(t testing.TB, rec EventRecord) {
	t.Helper()
	appendsAsMarshal(t, &rec, AppendEventRecord, len(rec.Event) > 0,
		rec.TrackingID, rec.AccountID, rec.Env, rec.SCAC, rec.EventID, rec.ContentHash, rec.SourceID)
}

// appendsAsMarshal checks an Append function against json.Marshal: the
// same bytes when it reports true, nothing appended when it reports false,
// and true whenever json.Marshal succeeds, mustAppend holds and every one
// of strs is printable ASCII without quotes, backslashes, <, > or &.
func appendsAsMarshal[T any](t testing.TB, v *T, appendTo func([]byte, *T) ([]byte, bool), mustAppend bool, strs ...string) {
	t.Helper()
	want, err := json.Marshal(v)
	got, ok := appendTo([]byte("prefix"), v)
	if !ok {
		if string(got) != "prefix" {
			t.Fatalf("%+v: appended %q while reporting false", *v, got)
		}
		plain := true
		for _, s := range strs {
			plain = plain && !strings.ContainsAny(s, `"\<>&`) && !strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r > '~' })
		}
		if plain && err == nil && mustAppend {
			t.Fatalf("%+v: false for plain strings", *v)
		}
		return
	}
	if err != nil {
		t.Fatalf("%+v: appended while json.Marshal fails: %v", *v, err)
	}
	if !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("appended\n got %s\nwant %s", got[len("prefix"):], want)
	}
}

func TestAppendEventRecordSameAsMarshal(t *testing.T) {
	for _, v := range sampleRecords(t) {
		var rec EventRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			t.Fatal(err)
		}
		appendSameAsMarshal(t, rec)
		for _, odd := range []string{"", "a<b", "x&y", `q"uote`, `back\slash`, "tab\t", "Späte", "\u2028", "\xff"} {
			r := rec
			r.SourceID, r.SCAC = odd, odd
			appendSameAsMarshal(t, r)
		}
		r := rec
		r.EmittedAt = time.Date(2026, 3, 15, 2, 0, 0, 0, time.FixedZone("CET", 3600)) // no fraction, an offset
		appendSameAsMarshal(t, r)
		r.EmittedAt = time.Time{}
		appendSameAsMarshal(t, r)
		r.EmittedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // json.Marshal refuses it
		appendSameAsMarshal(t, r)
	}
}

func FuzzAppendEventRecord(f *testing.F) {
	f.Add("trk_1", "MAEU", "ev-1", "Rotterdam", int64(1773540000123456789), true)
	f.Add("a<b", "", "\u2028", "Späte Ankunft", int64(0), false)
	f.Fuzz(func(t *testing.T, tracking, scac, eventID, location string, nanos int64, update bool) {
		body, err := json.Marshal(dcsa.Event{EventID: eventID, EventLocation: &dcsa.Location{LocationName: location}})
		if err != nil {
			t.Skip()
		}
		appendSameAsMarshal(t, EventRecord{TrackingID: tracking, AccountID: "acct", Env: EnvLive, SCAC: scac, EventID: eventID,
			ContentHash: "h", Update: update, Event: body, SourceID: location, EmittedAt: time.Unix(0, nanos).UTC()})
	})
}

func BenchmarkEncodeEventRecord(b *testing.B) {
	var rec EventRecord
	if err := json.Unmarshal(sampleRecords(b)[0], &rec); err != nil {
		b.Fatal(err)
	}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendEventRecord", func(b *testing.B) {
		for b.Loop() {
			AppendEventRecord(make([]byte, 0, len(rec.Event)+512), &rec)
		}
	})
}
