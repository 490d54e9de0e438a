package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// TestAPIServerInfersCarrierByProbingTheSandbox checks the wiring of
// carrier inference in the served API: a sandbox key's probes reach the
// sandbox carriers through the poller's adapters, with the key's stored
// credentials, and pick the one carrier that knows a leased box.
func TestAPIServerInfersCarrierByProbingTheSandbox(t *testing.T) {
	db := testenv.Postgres(t)
	sb := httptest.NewServer(sandbox.NewHandler(sandbox.Config{}))
	t.Cleanup(sb.Close)
	box, err := secretbox.New("wiring-secret")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{SecretKey: "wiring-secret", SandboxAddr: strings.TrimPrefix(sb.URL, "http://"), CarrierURLs: map[string]string{}}
	store := auth.NewStore(db.Pool)
	srv := newAPIServer(context.Background(), cfg, testenv.Log(t), &infra{box: box, pg: db.Pool}, store, nil)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	key, _, err := store.CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	s := &system{t: t, cfg: Config{HTTPAddr: strings.TrimPrefix(ts.URL, "http://")}} // for its do helper
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"k"},"HLCU":{"clientId":"i","clientSecret":"s"},"COSU":{"clientId":"i","clientSecret":"s"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	// TGHU0000055: a leasing company's box the sandbox's MAEU alone knows.
	code, body := s.do("GET", "/carrier/infer?number=TGHU0000055", key, "")
	cands, _ := body["candidates"].([]any)
	if code != 200 || len(cands) != 1 || cands[0].(map[string]any)["scacCode"] != "MAEU" || len(body["probed"].([]any)) != 3 {
		t.Fatalf("infer: %d %v", code, body)
	}
	if code, body := s.do("POST", "/subscription/equipment", key, `{"containerNumber":"TGHU0000055","subscriptionReference":"leased"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	if code, body := s.do("GET", "/subscription/leased", key, ""); code != 200 || body["scacCode"] != "MAEU" {
		t.Fatalf("subscription: %d %v", code, body)
	}
}

// TestEndToEndSubscribeWithoutSCAC: a subscription to a leased box without
// scacCode gets the carrier that knows it, and that carrier's events reach
// the journey read model: the inferred SCAC travels through the outbox, the
// poller and the normaliser like a given one.
func TestEndToEndSubscribeWithoutSCAC(t *testing.T) {
	s := startSystem(t)
	key, _, err := auth.NewStore(s.db.Pool).CreateKey(context.Background(), auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	if code, body := s.do("POST", "/carrier/credentials", key, `{"MAEU":{"apiKey":"k"},"HLCU":{"clientId":"i","clientSecret":"s"},"CMDU":{"apiKey":"k"}}`); code != 200 {
		t.Fatalf("credentials: %d %v", code, body)
	}
	const leased = "TGHU0000055" // only the sandbox's MAEU knows it
	if code, body := s.do("POST", "/subscription/equipment", key, `{"containerNumber":"`+leased+`","subscriptionReference":"leased"}`); code != 200 {
		t.Fatalf("subscribe: %d %v", code, body)
	}
	testkit.Eventually(t, 30*time.Second, "the journey of "+leased+" after subscribing", func() bool {
		code, body := s.do("GET", "/subscription/equipment?equipmentNumber="+leased, key, "")
		results, _ := body["results"].([]any)
		if code != 200 || len(results) != 1 {
			return false
		}
		j := results[0].(map[string]any)
		if src, _ := j["sourceEvents"].([]any); len(src) == 0 {
			return false
		}
		if j["scacCode"] != "MAEU" {
			t.Fatalf("journey of %v", j["scacCode"])
		}
		return true
	})
	testkit.Eventually(t, 10*time.Second, "connectionStatus CONNECTED", func() bool {
		code, body := s.do("GET", "/subscription/leased", key, "")
		if code != 200 || body["scacCode"] != "MAEU" {
			t.Fatalf("subscription: %d %v", code, body)
		}
		return body["connectionStatus"] == "CONNECTED"
	})
}
