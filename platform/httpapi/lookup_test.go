package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
)

// slowLookups is the real key cache whose store look-ups take delay, as on
// a freshly started API whose pool is still connecting: it makes every
// request of a burst arrive while the first look-up is in flight.
type slowLookups struct {
	*auth.CachedAuthenticator
	delay   time.Duration
	lookups atomic.Int64
}

func (s *slowLookups) Authenticate(ctx context.Context, plaintext string) (auth.Key, error) {
	if _, hit, _ := s.Cached(plaintext); !hit {
		s.lookups.Add(1)
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return auth.Key{}, ctx.Err()
		}
	}
	return s.CachedAuthenticator.Authenticate(ctx, plaintext)
}

// statuses sends n concurrent GET /ok with the keys key(i) and returns how
// many got each status.
func statuses(t *testing.T, url string, n int, key func(i int) string) map[int]int {
	t.Helper()
	var (
		mu   sync.Mutex
		got  = map[int]int{}
		wg   sync.WaitGroup
		errs = make(chan error, n)
	)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			req, _ := http.NewRequest("GET", url+"/ok", nil)
			req.Header.Set("x-api-key", key(i))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body) // drained for the connection's reuse; the status is what is checked
			resp.Body.Close()
			mu.Lock()
			got[resp.StatusCode]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return got
}

// TestConcurrentFirstLookUpsOfOneKeyCostOneToken: right after start (empty
// key cache), 64 concurrent requests with one valid key share one look-up
// and one pre-authentication token, so none is refused at the default 20/s
// (burst 40); concurrent requests with one unknown key share the look-up and
// its error; a look-up survives the request that started it leaving; and a
// flood of random keys from the same address is still paced.
func TestConcurrentFirstLookUpsOfOneKeyCostOneToken(t *testing.T) {
	db := testenv.Postgres(t)
	store := auth.NewStore(db.Pool)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cache := auth.NewCachedAuthenticator(store, time.Hour, testenv.Log(t))
	testenv.RunStage(t, "api-key-cache", cache.Run)
	testkit.Eventually(t, 10*time.Second, "the key cache listening", cache.Listening)
	valid, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "beta", Env: "sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	slow := &slowLookups{CachedAuthenticator: cache, delay: 300 * time.Millisecond}
	srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: slow,
		PreAuth: httpapi.NewAddrLimiter(20, 40, 0), PreAuthRefusals: httpapi.NewAddrLimiter(200, 400, 0), // the defaults
		Limiter: httpapi.NewRateLimiter()})
	srv.Fuego.Mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	got := statuses(t, ts.URL, 64, func(int) string { return valid })
	if got[200] != 64 {
		t.Fatalf("64 concurrent first requests with one valid key: statuses %v, want 64 × 200", got)
	}
	if n := slow.lookups.Load(); n != 1 {
		t.Fatalf("64 concurrent first requests with one valid key made %d store look-ups, want 1", n)
	}

	unknown := fmt.Sprintf("ct_sandbox_%043d", 1)
	got = statuses(t, ts.URL, 16, func(int) string { return unknown })
	if got[403] != 16 {
		t.Fatalf("16 concurrent requests with one unknown key: statuses %v, want 16 × 403 (the shared error)", got)
	}
	if n := slow.lookups.Load(); n != 2 {
		t.Fatalf("after one unknown key's burst: %d store look-ups, want 2", n)
	}

	// The request that starts a look-up leaves mid-flight: the flight runs
	// on, and the requests that joined it get their answer.
	leaver, cancelLeaver := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelLeaver()
	req, _ := http.NewRequestWithContext(leaver, "GET", ts.URL+"/ok", nil)
	req.Header.Set("x-api-key", other)
	leaverDone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		leaverDone <- err
	}()
	testkit.Eventually(t, 5*time.Second, "the leaving request's look-up started", func() bool { return slow.lookups.Load() >= 3 })
	got = statuses(t, ts.URL, 8, func(int) string { return other })
	if got[200] != 8 {
		t.Fatalf("requests joining a look-up whose first client left: statuses %v, want 8 × 200", got)
	}
	if err := <-leaverDone; err == nil {
		t.Fatal("the leaving request was not cancelled: the test proves nothing")
	}
	if n := slow.lookups.Load(); n != 3 {
		t.Fatalf("after the leaver's burst: %d store look-ups, want 3", n)
	}

	// A flood of distinct random keys from the same address: each is its
	// own look-up, paced by the bucket (40 + 20/s): some are refused, and
	// no more look-ups reach the store than the bucket allows.
	before := slow.lookups.Load()
	began := time.Now()
	got = statuses(t, ts.URL, 200, func(i int) string { return fmt.Sprintf("ct_sandbox_%043d", 1000+i) })
	elapsed := time.Since(began)
	flood := slow.lookups.Load() - before
	if got[429] == 0 {
		t.Fatalf("200 random keys at once from one address: statuses %v, want some 429", got)
	}
	if allowed := 40 + int64(20*elapsed.Seconds()) + 1; flood > allowed {
		t.Fatalf("200 random keys in %s made %d store look-ups, the bucket allows %d", elapsed, flood, allowed)
	}
	if got[403]+got[429] != 200 {
		t.Fatalf("random keys: statuses %v, want only 403 and 429", got)
	}
}

// failingLookups is a key store whose look-ups fail: with an error, or by
// panicking (a bug), after delay.
type failingLookups struct {
	delay   time.Duration
	panics  bool
	lookups atomic.Int64
}

func (f *failingLookups) Authenticate(context.Context, string) (auth.Key, error) {
	f.lookups.Add(1)
	time.Sleep(f.delay) // the slow store being simulated
	if f.panics {
		panic("look-up bug")
	}
	return auth.Key{}, errors.New("store unreachable")
}

// A failed shared look-up answers every caller 500 (not 403, not 429), and
// a panicking one does too instead of ending the process (the flight runs
// outside the handlers' recover); the next request looks up again.
func TestSharedLookUpFailureReachesEveryCaller(t *testing.T) {
	for _, panics := range []bool{false, true} {
		store := &failingLookups{delay: 200 * time.Millisecond, panics: panics}
		srv := httpapi.New(httpapi.Config{Log: testenv.Log(t), Auth: store, PreAuth: httpapi.NewAddrLimiter(20, 40, 0)})
		srv.Fuego.Mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
		ts := httptest.NewServer(srv.Handler())
		key := fmt.Sprintf("ct_sandbox_%043d", 7)
		if got := statuses(t, ts.URL, 32, func(int) string { return key }); got[500] != 32 {
			t.Fatalf("panics %v: 32 concurrent requests on a failing look-up: statuses %v, want 32 × 500", panics, got)
		}
		if n := store.lookups.Load(); n != 1 {
			t.Fatalf("panics %v: %d look-ups for one burst, want 1", panics, n)
		}
		if got := statuses(t, ts.URL, 1, func(int) string { return key }); got[500] != 1 || store.lookups.Load() != 2 {
			t.Fatalf("panics %v: the next request: statuses %v after %d look-ups, want a new look-up", panics, got, store.lookups.Load())
		}
		ts.Close()
	}
}
