package ingest_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

const tnt3Equipment = `{"eventID":"zim-load-1","eventDateTime":"2026-03-02T08:15:00Z","eventUpdatedDateTime":"2026-03-02T08:20:00Z",
 "eventLocation":{"UNLocationCode":"NLRTM"},
 "eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"LOAD"},
 "equipmentDetails":{"equipmentReference":"ZCSU8823456","emptyIndicatorCode":"LADEN"}}`

const tnt3IoT = `{"eventID":"zim-iot-1","eventDateTime":"2026-03-02T08:15:00Z",
 "eventClassification":{"eventTypeCode":"IOT","eventClassifierCode":"ACT","iotEventTypeCode":"DETC"},
 "equipmentDetails":{"equipmentReference":"ZCSU8823456"},"iotDetails":{"iotEventCode":"DRO"}}`

// tnt3AVDO is an event contrack carries in no format.
const tnt3AVDO = `{"eventID":"zim-avdo-1","eventDateTime":"2026-03-02T08:15:00Z",
 "eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"AVDO"},
 "equipmentDetails":{"equipmentReference":"ZCSU8823456","emptyIndicatorCode":"EMPTY"}}`

const tnt3Broken = `{"eventID":"zim-bad-1","eventDateTime":"yesterday",
 "eventClassification":{"eventTypeCode":"EQUIPMENT","eventClassifierCode":"ACT","equipmentEventTypeCode":"GTIN"},
 "equipmentDetails":{"equipmentReference":"ZCSU8823456","emptyIndicatorCode":"LADEN"}}`

func events(evs ...string) string { return `{"events":[` + strings.Join(evs, ",") + `]}` }

// post sends body with headers and returns the answer.
func post(t *testing.T, f fixture, key, body string, header map[string]string) testenv.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", f.api.URL+"/events", strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := testenv.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	_ = jsonUnmarshal(raw, &out.JSON)
	return out
}

// A 3.0 push is answered as 3.0's Event Consumer answers — per-event
// feedback, API-Version 3.0.0, 3.0's shapes (validated against the
// published document) — whether it says API-Version 3 or only looks like
// 3.0; what can be processed is stored, as one raw record of its own format.
func TestPostEventsTNT3(t *testing.T) {
	f := setup(t)
	carrier := f.api.Key(auth.CreateKeyParams{ClientSlug: "zim", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "ZIMU"})
	consumer := f.api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	v3 := map[string]string{"API-Version": "3.0.0"}
	cases := []struct {
		name     string
		key      string
		body     string
		header   map[string]string
		status   int
		message  string
		feedback []string // severity@propertyPath
		stored   bool
	}{
		{"consumer key", consumer, events(tnt3Equipment), v3, 403, "Forbidden", nil, false},
		{"by shape", carrier, events(tnt3Equipment), nil, 200, "Successfully Added Event", nil, true},
		{"by header", carrier, events(tnt3Equipment), v3, 200, "Successfully Added Event", nil, true},
		{"events carried in no format", carrier, events(tnt3Equipment, tnt3AVDO), v3, 200, "Successfully Added Event", []string{"WARN@$.events[1]"}, true},
		{"3.0-only events are forwarded", carrier, events(tnt3IoT), v3, 200, "Successfully Added Event", nil, true},
		{"some refused", carrier, events(tnt3Broken, tnt3Equipment), nil, 200, "Successfully Added Event", []string{"ERROR@$.events[0].eventDateTime"}, true},
		{"nothing forwarded", carrier, events(tnt3AVDO), nil, 200, "Successfully Added Event", []string{"WARN@$.events[0]"}, false},
		{"all refused", carrier, events(tnt3Broken), v3, 400,
			`No event processed: eventDateTime: "yesterday" is not an RFC 3339 date-time: too short ($.events[0].eventDateTime)`,
			[]string{"ERROR@$.events[0].eventDateTime"}, false},
		{"empty body", carrier, "", v3, 400, "No event body", []string{"ERROR@"}, false},
		{"no events", carrier, `{"events":[]}`, nil, 400, "No event body", []string{"ERROR@"}, false},
		{"not 3.0", carrier, `[` + tnt3Equipment + `]`, v3, 400, `Invalid event body: expected {"events": [...]} (DCSA Track & Trace 3.0)`, []string{"ERROR@"}, false},
		{"malformed", carrier, `{"events":[`, v3, 400, "Malformed JSON: unexpected end of JSON input", []string{"ERROR@"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(rawRecords(t, f.kafka))
			r := post(t, f, c.key, c.body, c.header)
			if r.Status != c.status || r.Message() != c.message {
				t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, c.status, c.message)
			}
			if c.status == 403 {
				return
			}
			if r.Header.Get("API-Version") != "3.0.0" {
				t.Errorf("API-Version %q", r.Header.Get("API-Version"))
			}
			tnt3test.Must(t, tnt3test.PostEventsResponse([]byte(c.body), r.Status, r.Header, r.Raw))
			fb, _ := r.JSON["feedbackElements"].([]any)
			var got []string
			for _, e := range fb {
				m := e.(map[string]any)
				path, _ := m["propertyPath"].(string)
				got = append(got, m["severity"].(string)+"@"+path)
			}
			if strings.Join(got, ",") != strings.Join(c.feedback, ",") {
				t.Errorf("feedback %v, want %v", got, c.feedback)
			}
			recs := rawRecords(t, f.kafka)
			if stored := len(recs) > before; stored != c.stored {
				t.Fatalf("stored %v, want %v", stored, c.stored)
			}
			if c.stored {
				last := recs[len(recs)-1]
				if last.Format != string(carriers.FormatPushedTNT3) || last.SCAC != "ZIMU" || !bytes.Equal(last.Payload, []byte(c.body)) {
					t.Errorf("record %+v", last)
				}
			}
		})
	}
}

// DCSA's own example requests are accepted as they are.
func TestPostEventsTNT3Samples(t *testing.T) {
	f := setup(t)
	carrier := f.api.Key(auth.CreateKeyParams{ClientSlug: "exco", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "ZIMU"})
	files, _ := filepath.Glob(filepath.Join(reference.Samples(), "tnt-300-request-*.json"))
	for _, file := range files {
		raw, _ := os.ReadFile(file)
		r := post(t, f, carrier, string(raw), nil)
		if r.Status != 200 || r.Message() != ingest.MsgAdded {
			t.Errorf("%s: %d %s", filepath.Base(file), r.Status, r.Raw)
		}
		tnt3test.Must(t, tnt3test.PostEventsResponse(raw, r.Status, r.Header, r.Raw))
	}
}

// The rules of every push hold for 3.0: the signature, and the interface's
// events keep their answers exactly (no feedbackElements, no API-Version).
func TestPostEventsTNT3KeepsTheRules(t *testing.T) {
	f := setup(t)
	key := f.api.Key(auth.CreateKeyParams{ClientSlug: "zim", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "ZIMU"})
	k, err := f.api.Store.Authenticate(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetSigningSecret(context.Background(), k.ID, "shared-secret"); err != nil {
		t.Fatal(err)
	}
	body := events(tnt3Equipment)
	mac := hmac.New(sha256.New, []byte("shared-secret"))
	mac.Write([]byte(body))
	good := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if r := post(t, f, key, body, map[string]string{"Notification-Signature": "sha256=00"}); r.Status != 403 || r.Message() != "Invalid Notification-Signature" {
		t.Errorf("bad signature: %d %s", r.Status, r.Raw)
	}
	if r := post(t, f, key, body, map[string]string{"Notification-Signature": good}); r.Status != 200 {
		t.Errorf("good signature: %d %s", r.Status, r.Raw)
	}
	if err := f.store.SetSigningSecret(context.Background(), k.ID, ""); err != nil {
		t.Fatal(err)
	}
	r := post(t, f, key, equipmentEvent, nil)
	if r.Status != 200 || string(bytes.TrimSpace(r.Raw)) != `{"message":"Successfully Added Event"}` || r.Header.Get("API-Version") != "" {
		t.Errorf("2.0.2 event: %d %s %v", r.Status, r.Raw, r.Header)
	}
	big := events(strings.Repeat(tnt3Equipment+",", 4000) + tnt3Equipment)
	if r := post(t, f, key, big, nil); r.Status != 413 {
		t.Errorf("a body over the limit: %d", r.Status)
	}
}

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// A 3.0 push signed the Standard Webhooks way is processed once per
// webhook-id, as every signed push: a replay gets the same 3.0 answer,
// feedback included, and stores nothing.
func TestPostEventsTNT3SignedOnce(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	box, _ := secretbox.New("test")
	secrets := &ingest.SigningSecretStore{Pool: db.Pool, Box: box}
	producer := testenv.KafkaClient(t, kc.Brokers)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		ingest.RegisterEvents(s, ingest.EventsDeps{Producer: producer, Namespace: kc.NS, Secrets: secrets, PushIDs: &ingest.PushIDStore{Pool: db.Pool},
			Log: testenv.Log(t), Check: pushed.Check, CheckTNT3: tnt3.Check})
	})
	key, k, err := api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "zim", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "ZIMU"})
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := signature.NewSecret()
	if err := secrets.SetSigningSecret(context.Background(), k.ID, secret); err != nil {
		t.Fatal(err)
	}
	body := events(tnt3Equipment, tnt3AVDO)
	f := fixture{api: api, kafka: kc}
	for i := 0; i < 2; i++ {
		r := post(t, f, key, body, swHeaders(secret, "msg_3", time.Now(), body))
		if r.Status != 200 || r.Header.Get("API-Version") != "3.0.0" || !strings.Contains(string(r.Raw), `"severity":"WARN"`) {
			t.Fatalf("push %d: %d %s", i+1, r.Status, r.Raw)
		}
		if n := len(rawRecords(t, kc)); n != 1 {
			t.Fatalf("push %d: %d records, want 1", i+1, n)
		}
	}
	if r := post(t, f, key, body, swHeaders("whsec_"+strings.Repeat("A", 43)+"=", "msg_4", time.Now(), body)); r.Status != 403 {
		t.Errorf("a wrong signature: %d %s", r.Status, r.Raw)
	}
}
