package journey

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/contrack/contrack/schemas/dcsa"
)

// marshalForm says exactly whether json.Marshal keeps a valid JSON value
// as it is.
func marshalFormAgrees(t *testing.T, raw []byte) {
	if !json.Valid(raw) {
		return
	}
	c, err := json.Marshal(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if want := bytes.Equal(c, raw); marshalForm(raw) != want {
		t.Fatalf("marshalForm(%q) = %v, but json.Marshal gives %q", raw, !want, c)
	}
}

func TestMarshalForm(t *testing.T) {
	for _, s := range []string{`{"a":"b"}`, `{"a": "b"}`, "{\"a\":\"b\"}\n", `{"a":"<b>"}`, `{"a":"\u003cb"}`, `{"a":"x&y"}`,
		"{\"a\":\"\u2028\"}", "{\"a\":\"\u2029\"}", "{\"a\":\"\u2027\"}", `{"a":"\"quoted\" \\ back"}`, `[1, 2]`, `[1,2]`,
		`{"ü":"Späte Ankunft – Sturm"}`, `"\\"`, `{"a":"\\u2028"}`} {
		marshalFormAgrees(t, []byte(s))
	}
	ev, err := json.Marshal(dcsa.Event{EventID: "e1", ChangeRemark: "a < b & c > d", EventLocation: &dcsa.Location{LocationName: "Späte"}})
	if err != nil {
		t.Fatal(err)
	}
	if !marshalForm(ev) {
		t.Fatalf("json.Marshal's own output %s is not in marshal form", ev)
	}
}

func FuzzMarshalForm(f *testing.F) {
	f.Add([]byte(`{"a":"b","c":[1,2,{"d":null}]}`))
	f.Add([]byte("{\"a\" : \"<\u2028>\"}"))
	f.Fuzz(marshalFormAgrees)
}
