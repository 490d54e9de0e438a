package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/contrack/contrack/platform/auth"
)

// lookUpTimeout bounds one key look-up flight: the pre-authentication hold
// (at most MaxPreAuthWait) plus the store query.
const lookUpTimeout = MaxPreAuthWait + 10*time.Second

// preAuthRefusal is a look-up refused by the client address's
// pre-authentication limit; wait says when a token will be free.
type preAuthRefusal struct{ wait time.Duration }

func (e *preAuthRefusal) Error() string {
	return fmt.Sprintf("pre-authentication limit: next token in %s", e.wait)
}

// errClientGone: the request ended while its look-up was in flight; there
// is no one left to answer.
var errClientGone = errors.New("client left during the key look-up")

// lookUp resolves a key the authenticator could not answer from memory.
// Concurrent look-ups of one key share one flight: one PreAuth token
// (charged to the address of the request that started it) and one store
// query, and every caller gets its outcome, error included. The flight runs
// on its own context (the starting request's values, not its cancellation,
// plus a timeout), so the first client leaving does not fail the others;
// each caller still stops waiting when its own request ends.
func (s *Server) lookUp(r *http.Request, plaintext string) (auth.Key, error) {
	addr := s.clientAddr(r)
	flight := context.WithoutCancel(r.Context())
	ch := s.lookups.DoChan(plaintext, func() (_ any, err error) {
		// A panic here would escape the handlers' recover (the flight is its
		// own goroutine) and end the process: every caller gets a 500.
		defer func() {
			if v := recover(); v != nil {
				s.cfg.Log.Error("panic in key look-up", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				err = fmt.Errorf("key look-up panicked: %v", v)
			}
		}()
		ctx, cancel := context.WithTimeout(flight, lookUpTimeout)
		defer cancel()
		// A flight that starts just after another one of the same key
		// ended finds its answer in memory and costs nothing.
		if m, ok := s.cfg.Auth.(MemoryAuthenticator); ok {
			if k, hit, err := m.Cached(plaintext); hit {
				return k, err
			}
		}
		if s.cfg.PreAuth != nil {
			wait, ok := s.cfg.PreAuth.Allow(addr, MaxPreAuthWait)
			if !ok {
				return auth.Key{}, &preAuthRefusal{wait: wait}
			}
			if !s.hold(ctx, wait) {
				// Too many requests already held (or the flight timed out).
				return auth.Key{}, &preAuthRefusal{wait: wait}
			}
		}
		return s.cfg.Auth.Authenticate(ctx, plaintext)
	})
	select {
	case res := <-ch:
		k, _ := res.Val.(auth.Key)
		return k, res.Err
	case <-r.Context().Done():
		return auth.Key{}, errClientGone
	}
}
