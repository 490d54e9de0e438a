package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/testkit"
)

// waitCached authenticates key until the cache holds it, which it does once
// its revocation listener is up: before that, it keeps no key.
func waitCached(tb testing.TB, ctx context.Context, cache *auth.CachedAuthenticator, key string) {
	tb.Helper()
	testkit.Eventually(tb, 10*time.Second, "the key cached (revocation listener up)", func() bool {
		if _, err := cache.Authenticate(ctx, key); err != nil {
			tb.Fatal(err)
		}
		_, hit, _ := cache.Cached(key)
		return hit
	})
}
