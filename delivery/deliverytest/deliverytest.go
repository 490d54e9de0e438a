// Package deliverytest runs the delivery stage in tests of any package: a
// fresh Postgres database, an in-process Kafka, accounts, webhooks,
// subscriptions and events made as the other stages make them, and webhook
// receivers that record what they get.
package deliverytest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/delivery"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/deliveries"
)

// Harness is a delivery stage's world: a Postgres database, an in-process
// Kafka (made on first use), a secret box and optionally ClickHouse, with
// helpers to make accounts, webhooks, subscriptions and events as the other
// stages would.
type Harness struct {
	T       testing.TB
	DB      testenv.PGDatabase
	Box     *secretbox.Box
	CH      *testenv.CHDatabase // nil unless asked for
	Metrics *delivery.Metrics
	// Partitions of every topic of the harness's Kafka (default 4); set
	// before the first use of Brokers.
	Partitions int32

	kafkaOnce sync.Once
	kafka     testenv.KafkaCluster
	producer  *kgo.Client
}

// New returns a harness on a fresh database.
func New(t testing.TB, withClickHouse bool) *Harness {
	t.Helper()
	return NewOn(t, testenv.Postgres(t), withClickHouse)
}

// NewOn is New on an existing database (e.g. one an API under test uses).
func NewOn(t testing.TB, db testenv.PGDatabase, withClickHouse bool) *Harness {
	t.Helper()
	box, err := secretbox.New("delivery-test-key")
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{T: t, DB: db, Box: box, Metrics: delivery.NewMetrics()}
	if withClickHouse {
		ch := testenv.ClickHouse(t)
		h.CH = &ch
	}
	return h
}

// Kafka is the harness's Kafka, started on first use with every contrack
// topic (Partitions partitions each).
func (h *Harness) Kafka() testenv.KafkaCluster {
	h.kafkaOnce.Do(func() {
		if h.Partitions == 0 {
			h.Partitions = 4
		}
		h.kafka = testenv.Kafka(h.T, h.Partitions)
		h.producer = testenv.KafkaClient(h.T, h.kafka.Brokers)
	})
	return h.kafka
}

// Brokers are the seed brokers of the harness's Kafka.
func (h *Harness) Brokers() []string { return h.Kafka().Brokers }

// Config is a configuration with test-sized waits.
func Config() delivery.Config {
	return delivery.Config{
		Workers:             16,
		EndpointConcurrency: 4,
		Timeout:             3 * time.Second,
		Schedule:            []time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond},
		Jitter:              -1,
		PollInterval:        20 * time.Millisecond,
		ShutdownGrace:       time.Second,
		AllowPrivate:        true,
		Version:             "test",
		LogFlushInterval:    50 * time.Millisecond,
		SweepInterval:       200 * time.Millisecond,
		MetricsInterval:     100 * time.Millisecond,
		BreakerFailures:     1000,
	}
}

// Deps are the stage's dependencies on the harness.
func (h *Harness) Deps() delivery.Deps {
	d := delivery.Deps{Brokers: h.Brokers(), Namespace: h.Kafka().NS, Pool: h.DB.Pool, Box: h.Box, Log: testenv.Log(h.T), Metrics: h.Metrics}
	if h.CH != nil {
		d.CH = h.CH.Conn
	}
	return d
}

// Start runs the stage until the returned stop is called (or the test ends).
func (h *Harness) Start(cfg delivery.Config) (stop func()) {
	h.T.Helper()
	deps := h.Deps()
	return testenv.RunStage(h.T, "Run", func(ctx context.Context) error { return delivery.Run(ctx, cfg, deps) })
}

// Exec runs a statement, failing the test on error.
func (h *Harness) Exec(sql string, args ...any) {
	h.T.Helper()
	if _, err := h.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		h.T.Fatalf("%s: %v", sql, err)
	}
}

// Account creates an account of env and returns its id.
func (h *Harness) Account(env string) string {
	id := uuid.NewString()
	h.Exec(`INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, $2, $3, 'test')`, id, "acct-"+id[:8], env)
	return id
}

// Webhook configures (and optionally activates) acct's webhook and returns its secret.
func (h *Harness) Webhook(acct, url string, activated bool) string {
	h.T.Helper()
	secret, err := signature.NewSecret()
	if err != nil {
		h.T.Fatal(err)
	}
	enc, err := h.Box.Seal([]byte(secret), secretbox.WebhookSecretContext(acct))
	if err != nil {
		h.T.Fatal(err)
	}
	h.Exec(`INSERT INTO webhooks (account_id, target_url, activated, secret_enc) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id) DO UPDATE SET target_url = $2, activated = $3, secret_enc = $4`, acct, url, activated, enc)
	return secret
}

// AuthHeaders stores hs as acct's webhook auth headers, sealed as POST
// /webhook/configure stores them (none: cleared).
func (h *Harness) AuthHeaders(acct string, hs ...deliveries.AuthHeader) {
	h.T.Helper()
	enc, err := deliveries.SealAuthHeaders(h.Box, acct, hs)
	if err != nil {
		h.T.Fatal(err)
	}
	h.Exec(`UPDATE webhooks SET auth_headers_enc = $2 WHERE account_id = $1`, acct, enc)
}

// Sub is a subscription the harness made.
type Sub struct {
	ID, Tracking, Account, Ref, Container string
}

var containerSeq atomic.Int64

// Subscribe opens a subscription of acct on a new container tracking.
func (h *Harness) Subscribe(acct, ref string) Sub {
	s := Sub{ID: uuid.NewString(), Tracking: uuid.NewString(), Account: acct, Ref: ref, Container: fmt.Sprintf("TEST%07d", containerSeq.Add(1))}
	h.Exec(`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		VALUES ($1, $2, 'sandbox', 'MAEU', 'container', $3, 'CONNECTED', 1)`, s.Tracking, acct, s.Container)
	h.SubscribeTracking(s)
	return s
}

// SubscribeTracking adds subscription s on s.Tracking (which exists).
func (h *Harness) SubscribeTracking(s Sub) {
	h.Exec(`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		VALUES ($1, $2, $3, $4, 'MAEU', $5, 'OPEN', now(), now() + interval '90 days')`, s.ID, s.Account, s.Ref, s.Tracking, s.Container)
}

// Event is a DCSA equipment event whose eventID is id.
func Event(id string, container string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"eventID":%q,"eventType":"EQUIPMENT","eventClassifierCode":"ACT","eventDateTime":"2026-11-20T10:00:00Z","equipmentEventTypeCode":"GTIN","equipmentReference":%q,"emptyIndicatorCode":"LADEN"}`, id, container))
}

// TNT3OnlyEvent is a 3.0-only event of container (a SHIPMENT, IOT or
// REEFER event, dcsa.Event.TNT3) as the normaliser writes it.
func TNT3OnlyEvent(id, typ, container string) json.RawMessage {
	ev := dcsa.Event{EventID: id, EventType: typ, EventClassifierCode: "ACT", EventDateTime: "2026-11-20T10:00:00Z",
		EventCreatedDateTime: "2026-11-20T10:01:00Z", EquipmentReference: container, TNT3: &dcsa.TNT3{}}
	switch typ {
	case dcsa.EventTypeShipment:
		ev.TNT3.ShipmentEventTypeCode = "CONF"
	case dcsa.EventTypeIoT:
		ev.TNT3.IotEventTypeCode, ev.TNT3.IotDetails = "DETC", json.RawMessage(`{"iotEventCode":"DRO"}`)
	case dcsa.EventTypeReefer:
		ev.TNT3.ReeferEventTypeCode, ev.TNT3.ReeferDetails = "MEAS", json.RawMessage(`{"temperatureUnit":"CEL","ambientMeasuredTemperature":21.5}`)
	}
	b, _ := json.Marshal(ev)
	return b
}

// Produce puts events for s's tracking on the events topic, as the
// normaliser does, each with content hash "h1" unless given as id#hash.
// Each record is a new emission (its own emittedAt).
func (h *Harness) Produce(s Sub, ids ...string) {
	h.T.Helper()
	recs := make([]schemas.EventRecord, 0, len(ids))
	for _, id := range ids {
		id, hash, ok := strings.Cut(id, "#")
		if !ok {
			hash = "h1"
		}
		recs = append(recs, h.Record(s, id, hash))
	}
	h.ProduceRecords(recs...)
}

// Record is an event record of s's tracking as the normaliser emits it:
// event id, content hash, and emittedAt now.
func (h *Harness) Record(s Sub, id, hash string) schemas.EventRecord {
	return schemas.EventRecord{
		TrackingID: s.Tracking, AccountID: s.Account, Env: "sandbox", SCAC: "MAEU",
		EventID: id, ContentHash: hash, Event: Event(id, s.Container), EmittedAt: time.Now().UTC(),
	}
}

// Retraction is the normaliser's record withdrawing event id of s's tracking.
func (h *Harness) Retraction(s Sub, id string) schemas.EventRecord {
	return schemas.EventRecord{
		TrackingID: s.Tracking, AccountID: s.Account, Env: "sandbox", SCAC: "MAEU", EventID: id,
		ContentHash: schemas.RetractedHash, Update: true, Event: schemas.RetractionEvent(id), EmittedAt: time.Now().UTC(),
	}
}

// ProduceRecords puts records on the events topic exactly as given: the
// same record produced twice is what a consumer sees when Kafka delivers a
// record again.
func (h *Harness) ProduceRecords(recs ...schemas.EventRecord) {
	h.T.Helper()
	out := make([]*kgo.Record, 0, len(recs))
	for _, rec := range recs {
		v, _ := json.Marshal(rec)
		typ, topic := schemas.TypeEvent, schemas.TopicEvents
		var ev dcsa.Summary
		switch {
		case rec.Retraction():
			typ = schemas.TypeEventRetracted
		case dcsa.DecodeSummary(rec.Event, &ev) == nil && dcsa.IsTNT3Only(ev.EventType):
			typ = schemas.TypeEventTNT3 // as the normaliser writes them
		}
		if schemas.IsAlertHash(rec.ContentHash) {
			typ, topic = schemas.TypeAlert, schemas.TopicAlerts
		}
		out = append(out, &kgo.Record{Topic: h.Kafka().Topic(topic), Key: []byte(rec.TrackingID), Value: v, Headers: schemas.Headers{
			Type: typ, ID: rec.EventID + "/" + rec.ContentHash,
		}.Kafka()})
	}
	h.Brokers()
	if err := kafka.ProduceSync(context.Background(), h.producer, out...); err != nil {
		h.T.Fatal(err)
	}
}

// Received is one request a Receiver got.
type Received struct {
	At     time.Time
	Header http.Header
	Body   []byte
	Status int
}

// WebhookID is the request's webhook-id.
func (r Received) WebhookID() string { return r.Header.Get("webhook-id") }

// Payload decodes the body.
func (r Received) Payload(t testing.TB) deliveries.Payload {
	var p deliveries.Payload
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
	return p
}

// EventIDs are the eventIDs of the body's events, in order.
func (r Received) EventIDs(t testing.TB) []string {
	var ids []string
	for _, e := range r.Payload(t).Events {
		var ev struct {
			EventID string `json:"eventID"`
		}
		if err := json.Unmarshal(e, &ev); err != nil {
			t.Fatalf("deliverytest: an event of the body: %v", err)
		}
		ids = append(ids, ev.EventID)
	}
	return ids
}

// Receiver is a webhook endpoint recording every request; answer decides
// each status (default 200).
type Receiver struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []Received
	answer func(n int, r *http.Request) int // n: 0-based request number
	header http.Header
}

// NewReceiver starts a receiver closed when the test ends.
func NewReceiver(t testing.TB, answer func(n int, r *http.Request) int) *Receiver {
	rc := &Receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.reqs)
		rc.reqs = append(rc.reqs, Received{At: time.Now(), Header: r.Header.Clone(), Body: body})
		answer := rc.answer
		rc.mu.Unlock()
		status := 200
		if answer != nil {
			status = answer(n, r)
		}
		rc.mu.Lock()
		rc.reqs[n].Status = status
		for k, v := range rc.header {
			w.Header()[k] = v
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// SetHeader adds a header to every answer from now on.
func (rc *Receiver) SetHeader(key, value string) {
	rc.mu.Lock()
	if rc.header == nil {
		rc.header = http.Header{}
	}
	rc.header.Set(key, value)
	rc.mu.Unlock()
}

// SetAnswer replaces the answer function (nil: always 200).
func (rc *Receiver) SetAnswer(f func(n int, r *http.Request) int) {
	rc.mu.Lock()
	rc.answer = f
	rc.mu.Unlock()
}

// Requests are every request received so far, in arrival order.
func (rc *Receiver) Requests() []Received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := make([]Received, len(rc.reqs))
	copy(out, rc.reqs)
	return out
}

// Acked are the requests answered 2xx (the status is set after the handler returns).
func (rc *Receiver) Acked() []Received {
	var out []Received
	for _, r := range rc.Requests() {
		if r.Status >= 200 && r.Status < 300 {
			out = append(out, r)
		}
	}
	return out
}

// AckedEvents are the event ids of every acknowledged request, in arrival order.
func (rc *Receiver) AckedEvents(t testing.TB) []string {
	var ids []string
	for _, r := range rc.Acked() {
		ids = append(ids, r.EventIDs(t)...)
	}
	return ids
}

// Verify checks both signatures of a request the way a Receiver would,
// independently of package signature: X-Hook-Signature (hex HMAC-SHA256 of
// the body keyed with the secret string) and the Standard Webhooks
// webhook-signature (base64 HMAC-SHA256 of "id.timestamp.body" keyed with
// the bytes after whsec_), with the timestamp within five minutes.
func Verify(secret string, h http.Header, body []byte) error {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	if got, want := h.Get("X-Hook-Signature"), hex.EncodeToString(mac.Sum(nil)); got != want {
		return fmt.Errorf("X-Hook-Signature %q, want %q", got, want)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return err
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return fmt.Errorf("webhook-timestamp %q not within 5 minutes", ts)
	}
	mac = hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no webhook-signature matches")
}

// DeliveryRow is a deliveries row as tests inspect it.
type DeliveryRow struct {
	ID, Status          string
	Attempts, Events    int
	LastCode            *int
	LastError           string
	Replayed            bool
	DeliveredAt, DeadAt *time.Time
}

// Deliveries are the subscription's deliveries in creation order.
func (h *Harness) Deliveries(subID string) []DeliveryRow {
	h.T.Helper()
	rows, err := h.DB.Pool.Query(context.Background(), `
		SELECT id::text, status, attempts, event_count, last_http_code, last_error, replayed, delivered_at, dead_at
		FROM deliveries WHERE subscription_id = $1 ORDER BY seq`, subID)
	if err != nil {
		h.T.Fatal(err)
	}
	defer rows.Close()
	var out []DeliveryRow
	for rows.Next() {
		var d DeliveryRow
		if err := rows.Scan(&d.ID, &d.Status, &d.Attempts, &d.Events, &d.LastCode, &d.LastError, &d.Replayed, &d.DeliveredAt, &d.DeadAt); err != nil {
			h.T.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// Count runs a count query.
func (h *Harness) Count(sql string, args ...any) int {
	h.T.Helper()
	var n int
	if err := h.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		h.T.Fatalf("%s: %v", sql, err)
	}
	return n
}
