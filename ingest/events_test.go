package ingest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/tnt3"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
)

const equipmentEvent = `{
  "eventID": "3cecb101-7a1a-43a4-9d62-e88a131651e2",
  "eventCreatedDateTime": "2026-03-01T10:00:00Z",
  "eventType": "EQUIPMENT",
  "eventClassifierCode": "ACT",
  "eventDateTime": "2026-03-01T09:30:00+01:00",
  "equipmentEventTypeCode": "LOAD",
  "equipmentReference": "CSQU3054383",
  "emptyIndicatorCode": "LADEN",
  "eventLocation": {"locationName": "Rotterdam", "UNLocationCode": "NLRTM"},
  "transportCall": {"transportCallID": "TC-1", "modeOfTransport": "VESSEL", "carrierVoyageNumber": "2103S",
    "UNLocationCode": "NLRTM", "vessel": {"vesselIMONumber": "9321483", "vesselName": "King of the Seas"}}
}`

type fixture struct {
	api   *testenv.API
	kafka testenv.KafkaCluster
	store *ingest.SigningSecretStore
}

func setup(t *testing.T) fixture { return setupWith(t, nil) }

// setupWith runs POST /events with its deps as edit leaves them.
func setupWith(t *testing.T, edit func(*ingest.EventsDeps)) fixture {
	t.Helper()
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	brokers := kc.Brokers
	box, _ := secretbox.New("test")
	store := &ingest.SigningSecretStore{Pool: db.Pool, Box: box}
	producer := testenv.KafkaClient(t, brokers)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		deps := ingest.EventsDeps{Producer: producer, Namespace: kc.NS, Secrets: store, Log: testenv.Log(t), Check: pushed.Check,
			CheckTNT3: tnt3.Check}
		if edit != nil {
			edit(&deps)
		}
		ingest.RegisterEvents(s, deps)
	})
	return fixture{api, kc, store}
}

// rawRecords returns what reached the carrier-raw topic.
func rawRecords(t *testing.T, kc testenv.KafkaCluster) []schemas.CarrierRaw {
	t.Helper()
	cl := testenv.KafkaClient(t, kc.Brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicCarrierRaw)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var out []schemas.CarrierRaw
	for ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var env schemas.CarrierRaw
			if err := json.Unmarshal(r.Value, &env); err != nil {
				t.Errorf("bad envelope: %v", err)
			}
			out = append(out, env)
		})
	}
	return out
}

func TestPostEventsSpecMessages(t *testing.T) {
	f := setup(t)
	carrier := f.api.Key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	consumer := f.api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	noRef := strings.Replace(equipmentEvent, `"equipmentReference": "CSQU3054383",`, "", 1)
	shipment := strings.Replace(equipmentEvent, `"eventType": "EQUIPMENT"`, `"eventType": "SHIPMENT"`, 1)
	cases := []struct {
		name, key string
		body      any
		status    int
		msg       string
	}{
		{"consumer key", consumer, equipmentEvent, 403, "Forbidden"},
		{"no key", "", equipmentEvent, 403, "Forbidden"},
		{"empty body", carrier, "", 400, "No event body"},
		{"whitespace body", carrier, "  \n", 400, "No event body"},
		{"empty array", carrier, "[]", 400, "No event body"},
		{"shipment event", carrier, shipment, 400, "No equipment or transport event provided"},
		{"no eventType", carrier, `{"equipmentReference":"CSQU3054383"}`, 400, "No equipment or transport event provided"},
		{"missing equipmentReference", carrier, noRef, 400, "equipmentReference is required"},
		{"array with one bad element: named", carrier, "[" + equipmentEvent + "," + noRef + "]", 400, "[1].equipmentReference is required"},
		{"array with a shipment event: named", carrier, "[" + shipment + "]", 400, "[0]: No equipment or transport event provided"},
		// TNT 2.x events wrapped in {"events": [...]}: read as 2.x, not 3.0.
		{"2.x envelope with one bad element: named", carrier, `{"events":[` + equipmentEvent + "," + noRef + "]}", 400, "events[1].equipmentReference is required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.api.Do("POST", "/events", c.key, c.body)
			if r.Status != c.status || r.Message() != c.msg {
				t.Fatalf("got %d %s, want %d %q", r.Status, r.Raw, c.status, c.msg)
			}
			if v := r.Header.Get("API-Version"); v != "" {
				t.Errorf("answered as DCSA Track & Trace 3.0 (API-Version %s)", v)
			}
		})
	}
	if got := rawRecords(t, f.kafka); len(got) != 0 {
		t.Fatalf("rejected requests reached Kafka: %d records", len(got))
	}
}

func TestPostEventsStoresRawBytesWithEnvelope(t *testing.T) {
	f := setup(t)
	carrier := f.api.Key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	second := strings.Replace(strings.Replace(equipmentEvent, "3cecb101", "4cecb101", 1), `"LOAD"`, `"DISC"`, 1)
	for _, body := range []string{equipmentEvent, "[" + equipmentEvent + "," + second + "]", `{"events":[` + equipmentEvent + "," + second + "]}"} {
		r := f.api.Do("POST", "/events", carrier, body) // no Content-Type, as curl -d
		if r.Status != 200 || r.Message() != "Successfully Added Event" {
			t.Fatalf("got %d %s", r.Status, r.Raw)
		}
	}
	got := rawRecords(t, f.kafka)
	if len(got) != 3 {
		t.Fatalf("records = %d, want 3", len(got))
	}
	// TNT 2.x events in {"events": [...]} are stored as the interface's
	// format, for the normaliser's 2.x reader.
	if got[2].Format != "dcsa-pushed" {
		t.Errorf("2.x envelope stored as %q, want dcsa-pushed", got[2].Format)
	}
	if string(got[0].Payload) != equipmentEvent || got[0].SCAC != "MAEU" || got[0].Env != "sandbox" || got[0].Format != "dcsa-pushed" || got[0].RequestID == "" || got[0].ReceivedAt.IsZero() {
		t.Fatalf("envelope: %+v", got[0])
	}
	if r := f.api.Do("HEAD", "/events", "", nil); r.Status != http.StatusNoContent {
		t.Fatalf("HEAD /events: %d", r.Status)
	}
}

// Single events pushed at the same time by one carrier key share records
// (CarrierRaw.Parts, a JSON array of the pushes as sent); each is in exactly
// one record, with the key's envelope. An array push keeps a record of its
// own, as sent.
func TestPostEventsCombinesConcurrentSingleEvents(t *testing.T) {
	f := setupWith(t, func(d *ingest.EventsDeps) { d.Combine, d.Linger = true, 300*time.Millisecond })
	carrier := f.api.Key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	const n = 12
	single := func(i int) string { return strings.Replace(equipmentEvent, "3cecb101", fmt.Sprintf("%08d", i), 1) }
	array := "[" + single(100) + "," + single(101) + "]"
	done := make(chan string, n+1)
	for i := range n + 1 {
		go func() {
			body := array
			if i < n {
				body = single(i)
			}
			r := f.api.Do("POST", "/events", carrier, body)
			if r.Status != 200 || r.Message() != "Successfully Added Event" {
				done <- fmt.Sprintf("push %d: %d %s", i, r.Status, r.Raw)
				return
			}
			done <- ""
		}()
	}
	for range n + 1 {
		if msg := <-done; msg != "" {
			t.Fatal(msg)
		}
	}
	got := rawRecords(t, f.kafka)
	seen := map[string]int{}
	singles := 0
	for _, env := range got {
		if env.SCAC != "MAEU" || env.Env != "sandbox" || env.Format != "dcsa-pushed" || env.RequestID == "" || env.CarrierKeyID == "" {
			t.Fatalf("envelope %+v", env)
		}
		if string(env.Payload) == array {
			if env.Parts != 0 {
				t.Fatalf("the array push was combined: %d parts", env.Parts)
			}
			seen["array"]++
			continue
		}
		singles++
		parts := []json.RawMessage{env.Payload}
		if env.Parts > 0 {
			if err := json.Unmarshal(env.Payload, &parts); err != nil || len(parts) != env.Parts {
				t.Fatalf("record of %d parts: %v %s", env.Parts, err, env.Payload)
			}
		}
		for _, p := range parts {
			seen[string(p)]++
		}
	}
	for i := range n {
		if seen[single(i)] != 1 {
			t.Fatalf("push %d in %d records, as sent", i, seen[single(i)])
		}
	}
	if seen["array"] != 1 || singles >= n {
		t.Fatalf("%d records for %d single pushes made together (want them combined), array in %d", singles, n, seen["array"])
	}
}

func TestPostEventsNotificationSignature(t *testing.T) {
	f := setup(t)
	key, k, err := f.api.Store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "hapag", Env: "live", Role: auth.RoleCarrier, SCAC: "HLCU"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetSigningSecret(context.Background(), k.ID, "shared-secret"); err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, []byte("shared-secret"))
	mac.Write([]byte(equipmentEvent))
	good := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	post := func(sig string) testenv.Response {
		req, _ := http.NewRequest("POST", f.api.URL+"/events", strings.NewReader(equipmentEvent))
		req.Header.Set("x-api-key", key)
		if sig != "" {
			req.Header.Set("Notification-Signature", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return testenv.Response{Status: resp.StatusCode, JSON: body}
	}
	for _, bad := range []string{"", "sha256=00", good[:len(good)-1] + "0", strings.TrimPrefix(good, "sha256=")} {
		if r := post(bad); r.Status != 403 || r.Message() != "Invalid Notification-Signature" {
			t.Errorf("signature %q: %d %v", bad, r.Status, r.JSON)
		}
	}
	if got := rawRecords(t, f.kafka); len(got) != 0 {
		t.Fatalf("unsigned requests reached Kafka: %d", len(got))
	}
	if r := post(good); r.Status != 200 {
		t.Fatalf("good signature: %d %v", r.Status, r.JSON)
	}
}

// Events shaped as the public interface describes them (no
// eventCreatedDateTime, transport calls without transportCallID or
// modeOfTransport) are accepted: the normaliser fills those in.
func TestPostEventsAcceptsSpecShapedEvents(t *testing.T) {
	f := setup(t)
	carrier := f.api.Key(auth.CreateKeyParams{ClientSlug: "maersk", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "MAEU"})
	for _, body := range []string{
		`{"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-05-01T10:00:00Z","equipmentEventTypeCode":"GTIN",
		  "equipmentReference":"MSKU9070323","ISOEquipmentCode":"45G1","emptyIndicatorCode":"LADEN","carrierCode":"MAEU",
		  "eventLocation":{"locationName":"Rotterdam","UNLocationCode":"NLRTM"},
		  "transportCall":{"carrierVoyageNumber":"123W","UNLocationCode":"NLRTM","vessel":{"vesselIMONumber":"9321483","vesselName":"King of the Seas"}},
		  "documentReferences":[{"documentReferenceType":"BKG","documentReferenceValue":"BK123"}]}`,
		`{"eventType":"TRANSPORT","eventClassifierCode":"EST","eventDateTime":"2026-12-01T10:00:00+01:00","transportEventTypeCode":"ARRI",
		  "equipmentReference":"MSKU9070323","transportCall":{"carrierVoyageNumber":"123W","UNLocationCode":"DEHAM",
		  "vessel":{"vesselIMONumber":"9321483","vesselName":"King of the Seas"},"location":{"UNLocationCode":"DEHAM"}}}`,
	} {
		if r := f.api.Do("POST", "/events", carrier, body); r.Status != 200 || r.Message() != "Successfully Added Event" {
			t.Fatalf("got %d %s", r.Status, r.Raw)
		}
	}
}

// The signing secret travels with the cached key (no query per request):
// setting or clearing it drops the key from every process's cache, so the
// next request sees the change.
func TestSigningSecretChangeReachesCachedKey(t *testing.T) {
	db := testenv.Postgres(t)
	box, _ := secretbox.New("test")
	secrets := &ingest.SigningSecretStore{Pool: db.Pool, Box: box}
	store := auth.NewStore(db.Pool)
	cache := auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	testenv.RunStage(t, "api-key-cache", cache.Run)
	// A sandbox key: a live key's secret cannot be cleared.
	key, k, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "hapag", Env: "sandbox", Role: auth.RoleCarrier, SCAC: "HLCU"})
	if err != nil {
		t.Fatal(err)
	}
	// Cached once the listener is up.
	testkit.Eventually(t, 5*time.Second, "the key cached", func() bool {
		if _, err := cache.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
		_, hit, _ := cache.Cached(key)
		return hit
	})
	waitSecret := func(want string) {
		t.Helper()
		testkit.Eventually(t, 2*time.Second, fmt.Sprintf("the cached key's signing secret %q", want), func() bool {
			got, err := cache.Authenticate(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			s, err := secrets.KeySigningSecret(got)
			if err != nil {
				t.Fatal(err)
			}
			return s == want
		})
	}
	waitSecret("")
	if err := secrets.SetSigningSecret(ctx, k.ID, "shared-secret"); err != nil {
		t.Fatal(err)
	}
	waitSecret("shared-secret")
	if err := secrets.SetSigningSecret(ctx, k.ID, ""); err != nil {
		t.Fatal(err)
	}
	waitSecret("")
}
