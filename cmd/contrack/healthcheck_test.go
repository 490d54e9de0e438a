package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHealthcheck: 2xx passes; 503 fails; 404 fails unless --any-status;
// nothing listening fails; a missing URL is a usage error.
func TestHealthcheck(t *testing.T) {
	status := map[string]int{"/readyz": 200, "/down": 503, "/none": 404}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status[r.URL.Path])
	}))
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	defer srv.Close()
	for _, c := range []struct {
		args []string
		ok   bool
	}{
		{[]string{srv.URL + "/readyz"}, true},
		{[]string{srv.URL + "/down"}, false},
		{[]string{srv.URL + "/none"}, false},
		{[]string{"--any-status", srv.URL + "/none"}, true},
		{[]string{"--any-status", srv.URL + "/down"}, false},
		{[]string{closed.URL + "/readyz"}, false},
	} {
		if err := runHealthcheck(context.Background(), c.args); (err == nil) != c.ok {
			t.Errorf("healthcheck %v: err %v, want ok=%v", c.args, err, c.ok)
		}
	}
	if err := runHealthcheck(context.Background(), nil); !errors.Is(err, errUsage) {
		t.Errorf("no URL: %v, want a usage error", err)
	}
	// Through run, before any configuration is read: a bad setting elsewhere
	// must not make the healthcheck fail.
	t.Setenv("CONTRACK_KAFKA_PARTITIONS", "not a number")
	if err := run([]string{"healthcheck", srv.URL + "/readyz"}); err != nil {
		t.Errorf("run healthcheck: %v", err)
	}
}
