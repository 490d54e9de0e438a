package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/testenv"
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
	srv := newAPIServer(context.Background(), cfg, testenv.Log(t), &infra{box: box, pg: db.Pool}, store)
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
