package queryapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
)

// BenchmarkRequestPath is the server's own work per request, without the
// network: the handler chain as contrack builds it (cached keys, a usage
// plan with a daily quota, request metrics) for GET /account and for a
// journey pull served from the cache, gzip as clients ask for it.
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

	for _, c := range []struct{ name, path string }{
		{"account", "/account"},
		{"journey", "/subscription/equipment?equipmentNumber=MSKU9070323"},
	} {
		b.Run(c.name, func(b *testing.B) {
			var reqs []*http.Request
			for _, key := range keyList {
				req := httptest.NewRequest("GET", c.path, nil)
				req.Header.Set("x-api-key", key)
				req.Header.Set("Accept-Encoding", "gzip")
				reqs = append(reqs, req)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req := reqs[i%len(reqs)]
				i++
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
