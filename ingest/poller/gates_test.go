package poller

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/contrack/contrack/ingest/carrier"
)

// The claim rounds take accounts round-robin from one place in the shares'
// order to the next, so that order must be the same every round (it is the
// order the shares were made in; the rounds no longer sort it).
func TestSharesKeepTheOrderTheyWereMadeIn(t *testing.T) {
	gs, err := NewGates(Config{}, nil, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	var made []*accountGate
	for i := range 64 {
		// Made by a probe (no credentials) or by the refresh (credentials):
		// only the latter are polled.
		a := gs.account("sandbox", "MAEU", fmt.Sprintf("acct-%02d", 63-i))
		if i%4 != 3 {
			a.creds = carrier.Credentials{"apiKey": "k"}
			made = append(made, a)
		}
	}
	for round := range 5 {
		if got := gs.shares(); !slices.Equal(got, made) {
			t.Fatalf("round %d: shares in another order than made (or with a share without credentials): %d of %d", round, len(got), len(made))
		}
	}

	// Shares the refresh forgets leave the order of the rest as it was.
	gs.cmu.Lock()
	for _, a := range made[:10] {
		delete(gs.accounts, a.key)
	}
	gs.dropGone()
	gs.cmu.Unlock()
	if got := gs.shares(); !slices.Equal(got, made[10:]) {
		t.Fatalf("after forgetting 10 shares: %d shares, not the other %d in their order", len(got), len(made)-10)
	}
	if n := len(gs.order); n != 64-10 {
		t.Fatalf("order keeps %d shares, want %d (the forgotten ones gone)", n, 64-10)
	}
}
