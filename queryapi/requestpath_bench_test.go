package queryapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

// BenchmarkRequestPath is the server's own work per request, without the
// network: the handler chain as contrack builds it (cached keys, a usage
// plan with a daily quota, request metrics) for GET /account and for a
// journey pull served from the cache, gzip as clients ask for it, and a
// 200-event journey with and without gzip.
//
//	go test -run '^$' -bench RequestPath -benchmem ./queryapi/
func BenchmarkRequestPath(b *testing.B) {
	e := newJourneyEnvWith(b, &queryapi.JourneysConfig{CacheBytes: 1 << 20, MaxAge: time.Hour}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := auth.NewStore(e.db.Pool)
	// Keys enough that the plan's rate (2,000/s per key) never refuses.
	var keyList []string
	var k auth.Key
	for range 256 {
		key, kk, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "bench", Env: "sandbox", Plan: "enterprise"})
		if err != nil {
			b.Fatal(err)
		}
		keyList, k = append(keyList, key), kk
	}
	keys := auth.NewCachedAuthenticator(store, time.Minute, testenv.Log(b))
	testenv.RunStage(b, "api-key-cache", keys.Run)
	usage := auth.NewDailyUsage(e.db.Pool, auth.DefaultUsageFlush, testenv.Log(b))
	testenv.RunStage(b, "api-daily-quota", usage.Run)
	srv := httpapi.New(httpapi.Config{Version: "bench", Log: testenv.Log(b), Auth: keys, Limiter: httpapi.NewRateLimiter().WithQuota(usage),
		Metrics: httpapi.NewRegistry("api", "bench")})
	queryapi.Register(srv.Fuego, queryapi.Deps{Pool: e.db.Pool, CH: e.ch.Conn, TokenKey: []byte("k"), Journeys: e.journeys})
	h := srv.Handler()

	s := &supersedeEnv{journeyEnv: e, account: k.Account.ID, trk: uuid.NewString()}
	e.produce(subscribed(s.account, s.trk, "MAEU", "container", "MSKU9070323", true), s.event("a", "2026-10-01T10:00:00Z"))
	e.until("/subscription/equipment?equipmentNumber=MSKU9070323", e.api.Key(auth.CreateKeyParams{ClientSlug: "bench", Env: "sandbox"}),
		func(r testenv.Response) bool { return containsEvent(r, "a") })

	// A longer journey (200 events), pulled with and without gzip: without,
	// the answer is the cached body's uncompressed form (issue 32).
	longTrk := uuid.NewString()
	recs := []*kgo.Record{subscribed(k.Account.ID, longTrk, "MAEU", "container", "CSQU3054383", true)}
	for i := range 200 {
		at := time.Date(2026, 10, 1, 0, i, 0, 0, time.UTC).Format(time.RFC3339)
		ev, _ := json.Marshal(dcsa.Event{EventID: fmt.Sprintf("long-%d", i), EventType: dcsa.EventTypeEquipment, EventClassifierCode: "ACT",
			EventDateTime: at, EventCreatedDateTime: at, EquipmentEventTypeCode: "GTOT", EquipmentReference: "CSQU3054383",
			EmptyIndicatorCode: "EMPTY", EventLocation: &dcsa.Location{UNLocationCode: "CNSHA"}})
		recs = append(recs, eventRecord(schemas.EventRecord{TrackingID: longTrk, AccountID: k.Account.ID, Env: "sandbox", SCAC: "MAEU",
			EventID: fmt.Sprintf("long-%d", i), ContentHash: at, Event: ev}))
	}
	e.produce(recs...)
	e.until("/subscription/equipment?equipmentNumber=CSQU3054383", e.api.Key(auth.CreateKeyParams{ClientSlug: "bench", Env: "sandbox"}),
		func(r testenv.Response) bool { return containsEvent(r, "long-199") })

	for _, c := range []struct{ name, path, encoding string }{
		{"account", "/account", "gzip"},
		{"journey", "/subscription/equipment?equipmentNumber=MSKU9070323", "gzip"},
		{"journey-200-events", "/subscription/equipment?equipmentNumber=CSQU3054383", "gzip"},
		{"journey-200-events-without-gzip", "/subscription/equipment?equipmentNumber=CSQU3054383", "identity"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var reqs []*http.Request
			for _, key := range keyList {
				req := httptest.NewRequest("GET", c.path, nil)
				req.Header.Set("x-api-key", key)
				req.Header.Set("Accept-Encoding", c.encoding)
				reqs = append(reqs, req)
			}
			b.ReportAllocs()
			i := 0
			w := &countingWriter{}
			for b.Loop() {
				req := reqs[i%len(reqs)]
				i++
				w.reset()
				h.ServeHTTP(w, req)
				if w.code != http.StatusOK {
					b.Fatalf("%d after %d bytes", w.code, w.bytes)
				}
			}
			b.ReportMetric(float64(w.bytes), "body-bytes")
		})
	}
}

// countingWriter is a ResponseWriter that counts the body instead of
// keeping it (httptest's recorder copies every byte: the client's cost,
// not the server's).
type countingWriter struct {
	header http.Header
	code   int
	bytes  int
}

func (w *countingWriter) reset() {
	clear(w.header)
	if w.header == nil {
		w.header = http.Header{}
	}
	w.code, w.bytes = 0, 0
}

func (w *countingWriter) Header() http.Header { return w.header }

func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.bytes += len(p)
	return len(p), nil
}
