package schemas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// sampleEnvelopes are envelopes as the ingest and the poller write them.
func sampleEnvelopes(t testing.TB) [][]byte {
	t.Helper()
	at := time.Date(2026, 3, 15, 1, 2, 3, 456789000, time.UTC)
	var out [][]byte
	for _, raw := range []CarrierRaw{
		{ID: "0f6a1b7e-2d7c-4c44-9a47-3c1f0d7f2a10", Format: "pushed", SCAC: "MAEU", Env: EnvLive, RequestID: "req-1",
			ReceivedAt: at, Payload: []byte(`[{"eventType":"EQUIPMENT"}]`), CarrierKeyID: "key-1"},
		{ID: "id-2", Format: "tnt22", SCAC: "HLCU", Env: EnvSandbox, AccountID: "acct-1", TrackingID: "trk-1",
			ReceivedAt: at.In(time.FixedZone("CET", 3600)), Payload: []byte{}},
		{ID: "id-3", Format: "iftsta", SCAC: "CMDU", Env: EnvLive, ReceivedAt: time.Time{}, Payload: []byte("UNA:+.? 'UNB+\x00\xff")},
		{ID: "id-4", Payload: []byte("x")},
		{ID: "id-5", Format: "dcsa-pushed", SCAC: "MAEU", Env: EnvSandbox, RequestID: "req-5", ReceivedAt: at,
			Payload: []byte(`[{"eventType":"EQUIPMENT"},{"eventType":"TRANSPORT"}]`), CarrierKeyID: "key-5", Parts: 2},
	} {
		v, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// edgeEnvelopes leave the fast path, or are errors.
var edgeEnvelopes = []string{
	`{"payload":"not base64!"}`,
	`{"payload":"QUJD"}`,
	`{"payload":"QUJ\u0044"}`,
	`{"payload":null}`,
	`{"payload":""}`,
	`{"payload":"QUJD","payload":"REVG"}`,
	`{"Payload":"QUJD"}`,
	`{"receivedAt":"2026-13-01T00:00:00Z"}`,
	`{"receivedAt":null,"id":"x"}`,
	`{"id":1}`,
	`{"id":"a\"b"}`,
	"{\"id\":\"\xff\"}",
	`{"other":"x"}`,
	`{"id":"x"`,
	`[]`, `null`, ``, ` { } `,
	"{\"payload\":\"QU\nJD\"}",
	`{"parts":3}`, `{"parts":0}`, `{"parts":03}`, `{"parts":-1}`, `{"parts":1.5}`, `{"parts":1e2}`, `{"parts":1234567890123}`,
	`{"parts":"2"}`, `{"parts":null}`, `{"parts":7 }`, `{"parts":12`, `{"parts":99999999999999999999999}`,
}

// sameAsUnmarshalRaw fails t unless DecodeCarrierRaw gives what
// json.Unmarshal gives into a zero envelope, errors included.
func sameAsUnmarshalRaw(t *testing.T, data []byte) {
	t.Helper()
	var want CarrierRaw
	wantErr := json.Unmarshal(data, &want)
	got := CarrierRaw{ID: "stale", Payload: []byte("stale"), ReceivedAt: time.Now()}
	gotErr := DecodeCarrierRaw(data, &got)
	if (gotErr != nil) != (wantErr != nil) || (wantErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%q: DecodeCarrierRaw error %v, json.Unmarshal error %v", data, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", data, got, want)
	}
}

func TestDecodeCarrierRawSameAsUnmarshal(t *testing.T) {
	for _, v := range sampleEnvelopes(t) {
		sameAsUnmarshalRaw(t, v)
		var fast CarrierRaw
		if !decodeSimpleCarrierRaw(v, &fast) {
			t.Errorf("an envelope as json.Marshal writes it takes the slow path: %s", v)
		}
	}
	for _, s := range edgeEnvelopes {
		sameAsUnmarshalRaw(t, []byte(s))
	}
}

func FuzzDecodeCarrierRaw(f *testing.F) {
	for _, v := range sampleEnvelopes(f) {
		f.Add(v)
		f.Add(v[:len(v)/2])
	}
	for _, s := range edgeEnvelopes {
		f.Add([]byte(s))
	}
	f.Fuzz(sameAsUnmarshalRaw)
}

// appendRawSameAsMarshal checks AppendCarrierRaw against json.Marshal (see
// appendsAsMarshal).
func appendRawSameAsMarshal(t testing.TB, raw CarrierRaw) {
	t.Helper()
	appendsAsMarshal(t, &raw, AppendCarrierRaw, true,
		raw.ID, raw.Format, raw.SCAC, raw.Env, raw.AccountID, raw.TrackingID, raw.RequestID, raw.CarrierKeyID)
}

func TestAppendCarrierRawSameAsMarshal(t *testing.T) {
	for _, v := range sampleEnvelopes(t) {
		var raw CarrierRaw
		if err := json.Unmarshal(v, &raw); err != nil {
			t.Fatal(err)
		}
		appendRawSameAsMarshal(t, raw)
		for _, odd := range []string{"", "a<b", "x&y", `q"uote`, `back\slash`, "tab\t", "Späte", "\u2028", "\xff"} {
			r := raw
			r.RequestID, r.SCAC = odd, odd
			appendRawSameAsMarshal(t, r)
		}
		r := raw
		r.Payload = nil
		appendRawSameAsMarshal(t, r)
		r.ReceivedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // json.Marshal refuses it
		appendRawSameAsMarshal(t, r)
	}
}

func FuzzAppendCarrierRaw(f *testing.F) {
	f.Add("id-1", "MAEU", "", "trk", "req", "key", []byte(`[{"a":1}]`), int64(1773540000123456789))
	f.Add("a<b", "", "\u2028", "", "Späte", "", []byte(nil), int64(0))
	f.Fuzz(func(t *testing.T, id, scac, account, tracking, request, key string, payload []byte, nanos int64) {
		appendRawSameAsMarshal(t, CarrierRaw{ID: id, Format: "pushed", SCAC: scac, Env: EnvLive, AccountID: account, TrackingID: tracking,
			RequestID: request, ReceivedAt: time.Unix(0, nanos).UTC(), Payload: payload, CarrierKeyID: key, Parts: int(nanos % 1000)})
	})
}

func BenchmarkDecodeCarrierRaw(b *testing.B) {
	payload := bytes.Repeat([]byte(`{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","equipmentReference":"MSKU1234565"},`), 40)
	v, err := json.Marshal(CarrierRaw{ID: "id", Format: "pushed", SCAC: "MAEU", Env: EnvLive, ReceivedAt: time.Now(), Payload: payload})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(v)))
	b.Run("Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var raw CarrierRaw
			if err := json.Unmarshal(v, &raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("DecodeCarrierRaw", func(b *testing.B) {
		for b.Loop() {
			var raw CarrierRaw
			if err := DecodeCarrierRaw(v, &raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}
