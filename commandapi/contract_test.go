package commandapi_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/commandapi/relay"
	"github.com/contrack/contrack/reference"

	"github.com/go-fuego/fuego"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
)

type specError struct {
	Status        int    `json:"status"`
	Endpoint      string `json:"endpoint"`
	Condition     string `json:"condition"`
	Message       string `json:"message"`
	DateOfRequest bool   `json:"dateOfRequest"`
}

// TestSpecErrorTable drives every row of the spec's Errors table
// (reference/spec/messages.json) that concerns the command side and account
// data, over HTTP, and checks status, message and dateOfRequest exactly.
// A row of these endpoints without a request here fails the test, so a
// spec change cannot go unnoticed.
func TestSpecErrorTable(t *testing.T) {
	raw, err := os.ReadFile(reference.Messages())
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Errors []specError `json:"errors"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	api, _ := webhookAPI(t, true)
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	api.Do("POST", "/subscription/equipment", key, sub("TAKEN", "containerNumber", container))
	api.Do("POST", "/webhook/configure", key, map[string]string{"targetUrl": "http://127.0.0.1:1/unreachable"})
	// scac and field fill the row's <scac_code> and <field>.
	type req struct{ method, path, body, scac, field string }
	requests := map[string]req{
		"all|x-api-key missing or invalid":                                           {"GET", "/subscriptions", "", "", ""},
		"POST /webhook/configure|targetUrl missing":                                  {"POST", "/webhook/configure", `{}`, "", ""},
		"POST /webhook/activate|secret missing":                                      {"POST", "/webhook/activate", `{}`, "", ""},
		"POST /webhook/activate|no webhook configured":                               {"POST", "/webhook/activate", `{"secret":"whsec_x"}`, "", ""}, // with a fresh key below
		"POST /webhook/activate|secret does not match":                               {"POST", "/webhook/activate", `{"secret":"whsec_wrong"}`, "", ""},
		"POST /carrier/credentials|body is not an object of per-carrier credentials": {"POST", "/carrier/credentials", `[1,2]`, "", ""},
		"POST /carrier/credentials|a carrier lacks a required field":                 {"POST", "/carrier/credentials", `{"HLCU":{"clientId":"x"}}`, "HLCU", "clientSecret"},
		"DELETE /carrier/credentials|carriers list missing or invalid":               {"DELETE", "/carrier/credentials", `{"carriers":"MAEU"}`, "", ""},
		"DELETE /carrier/credentials|unknown SCAC code":                              {"DELETE", "/carrier/credentials", `{"carriers":["ZZZZ"]}`, "ZZZZ", ""},
		"POST /carrier/health-check|scacCode missing or unsupported":                 {"POST", "/carrier/health-check", `{"scacCode":"ZZZZ"}`, "", ""},
		"POST /carrier/health-check|no credentials stored for that carrier":          {"POST", "/carrier/health-check", `{"scacCode":"CMDU"}`, "CMDU", ""},
		"GET /subscriptions|limit not an integer":                                    {"GET", "/subscriptions?limit=ten", "", "", ""},
		"POST /subscription/equipment|subscriptionReference already used":            {"POST", "/subscription/equipment", `{"scacCode":"MAEU","bookingNumber":"B","subscriptionReference":"TAKEN"}`, "", ""},
		"GET /subscription/{subscription_id}|no such subscription":                   {"GET", "/subscription/NOPE", "", "", ""},
		"DELETE /subscription/{subscription_id}|no such subscription":                {"DELETE", "/subscription/NOPE", "", "", ""},
	}
	// Rows of other issues' endpoints (GET /subscription/equipment, POST /events).
	elsewhere := map[string]bool{"GET /subscription/equipment": true, "POST /events": true}
	fresh := api.Key(auth.CreateKeyParams{ClientSlug: "fresh", Env: "sandbox"})
	covered := 0
	for _, row := range spec.Errors {
		if elsewhere[row.Endpoint] {
			continue
		}
		id := row.Endpoint + "|" + row.Condition
		rq, ok := requests[id]
		if !ok {
			t.Errorf("no request for spec row %q", id)
			continue
		}
		k := key
		switch {
		case row.Status == 403:
			k = ""
		case strings.Contains(row.Condition, "no webhook configured"):
			k = fresh
		}
		var body any
		if rq.body != "" {
			body = rq.body
		}
		r := api.Do(rq.method, rq.path, k, body)
		want := strings.NewReplacer("<scac_code>", rq.scac, "<field>", rq.field).Replace(row.Message)
		_, dated := r.JSON["dateOfRequest"]
		if r.Status != row.Status || r.Message() != want || dated != row.DateOfRequest {
			t.Errorf("%s: got %d %s, want %d %q (dateOfRequest %v)", id, r.Status, r.Raw, row.Status, want, row.DateOfRequest)
		}
		covered++
	}
	if covered < 15 {
		t.Fatalf("covered %d rows", covered)
	}
}

// Subscribing and closing over HTTP reach the subscriptions topic through
// the outbox relay, keyed by tracking, once each.
func TestSubscriptionChangesReachKafka(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 2)
	brokers := kc.Brokers
	box, _ := secretbox.New("test")
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, Box: box, TokenKey: []byte("k")})
		commandapi.Register(s, commandapi.Config{}, commandapi.Deps{Pool: db.Pool, Box: box})
	})
	producer := testenv.KafkaClient(t, brokers)
	testenv.RunStage(t, "outbox-relay", func(ctx context.Context) error {
		return relay.Run(ctx, relay.Config{Idle: 50 * time.Millisecond},
			relay.Deps{Pool: db.Pool, Producer: producer, Namespace: kc.NS, Log: testenv.Log(t)})
	})
	key := api.Key(auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	api.Do("POST", "/subscription/equipment", key, sub("A", "containerNumber", container))
	api.Do("POST", "/subscription/equipment", key, sub("B", "containerNumber", container))
	api.Do("DELETE", "/subscription/A", key, nil)
	api.Do("DELETE", "/subscription/B", key, nil)

	cl := testenv.KafkaClient(t, brokers, kgo.ConsumeTopics(kc.Topic(schemas.TopicSubscriptions)), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var got []schemas.SubscriptionChanged
	fctx, fcancel := context.WithTimeout(context.Background(), testkit.Scale(10*time.Second))
	defer fcancel()
	for len(got) < 4 && fctx.Err() == nil {
		cl.PollFetches(fctx).EachRecord(func(r *kgo.Record) {
			var ch schemas.SubscriptionChanged
			if err := json.Unmarshal(r.Value, &ch); err != nil {
				t.Fatal(err)
			}
			if string(r.Key) != ch.TrackingID || kafka.Header(r, schemas.HeaderID) != ch.ID || kafka.Header(r, schemas.HeaderType) != schemas.TypeSubscriptionChanged {
				t.Errorf("record key/headers: %s %v", r.Key, r.Headers)
			}
			got = append(got, ch)
		})
	}
	if len(got) != 4 {
		t.Fatalf("got %d records, want 4", len(got))
	}
	tracking := got[0].TrackingID
	wantOpen := []bool{true, true, true, false} // the last close stops the tracking
	for i, ch := range got {
		if ch.TrackingID != tracking || ch.TrackingOpen != wantOpen[i] || ch.Identifier != container || ch.SCAC != "MAEU" || ch.Env != "sandbox" {
			t.Errorf("record %d: %+v", i, ch)
		}
	}
	if got[2].Status != "CLOSED" || got[0].Status != "OPEN" {
		t.Errorf("statuses: %s %s", got[0].Status, got[2].Status)
	}
}
