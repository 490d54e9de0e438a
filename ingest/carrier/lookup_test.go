package carrier_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/iso6346"
)

func leased(owner string, serial int) string {
	base := fmt.Sprintf("%s%06d", owner, serial)
	return fmt.Sprintf("%s%d", base, iso6346.CheckDigit(base))
}

// TestLookupLeasedContainerKnownToOneSandboxCarrier: a leasing company's box
// is known to exactly one sandbox carrier (serial mod carriers, in SCAC
// order), in every carrier format; every other container to all of them.
func TestLookupLeasedContainerKnownToOneSandboxCarrier(t *testing.T) {
	e := newEnv(t, sandbox.Config{})
	all := carriers.All()
	ctx := context.Background()
	for i := range all {
		number := leased([]string{"TGHU", "SEGU", "FSCU"}[i%3], 100+i)
		want, ok := sandbox.LeasedTo(number)
		if !ok || want != all[(100+i)%len(all)].SCAC {
			t.Fatalf("LeasedTo(%s) = %q %v, want %s", number, want, ok, all[(100+i)%len(all)].SCAC)
		}
		for _, c := range all {
			got := carrier.LookupShipment(ctx, e.adapter(t, c.SCAC), creds(c, ""), carrier.Query{Kind: carrier.KindContainer, Value: number})
			wantStatus := carrier.LookupNotFound
			if c.SCAC == want {
				wantStatus = carrier.LookupFound
			}
			if got.Status != wantStatus {
				t.Errorf("%s asked for %s (leased to %s): %+v, want %s", c.SCAC, number, want, got, wantStatus)
			}
		}
	}
	// Carriers' own boxes, unknown owner codes and any booking: every carrier knows them.
	for _, q := range []carrier.Query{
		{Kind: carrier.KindContainer, Value: "MSKU9070323"},
		{Kind: carrier.KindContainer, Value: "CSQU3054383"},
		{Kind: carrier.KindBooking, Value: "TGHU0000005"},
	} {
		if _, ok := sandbox.LeasedTo(q.Value); ok && q.Kind == carrier.KindContainer {
			t.Fatalf("%s counted as leased", q.Value)
		}
		for _, c := range all {
			if got := carrier.LookupShipment(ctx, e.adapter(t, c.SCAC), creds(c, ""), q); got.Status != carrier.LookupFound {
				t.Errorf("%s asked for %s %s: %+v", c.SCAC, q.Kind, q.Value, got)
			}
		}
	}
}

// TestLookupStatuses maps the sandbox's test numbers and a timeout.
func TestLookupStatuses(t *testing.T) {
	e := newEnv(t, sandbox.Config{SlowDelay: 10 * time.Second})
	c, _ := carriers.Lookup("MAEU")
	a := e.adapter(t, c.SCAC)
	for value, want := range map[string]string{
		"NOFU0000001": carrier.LookupNotFound,
		"UNAU0000004": carrier.LookupUnauthorized,
		"DWNU0000000": carrier.LookupError,
	} {
		if got := carrier.LookupShipment(context.Background(), a, creds(c, ""), carrier.Query{Kind: carrier.KindContainer, Value: value}); got.Status != want {
			t.Errorf("%s: %+v, want %s", value, got, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if got := carrier.LookupShipment(ctx, a, creds(c, ""), carrier.Query{Kind: carrier.KindContainer, Value: "SLOU0000007"}); got.Status != carrier.LookupTimeout {
		t.Errorf("slow carrier past the deadline: %+v", got)
	}
	if got := carrier.LookupShipment(context.Background(), a, creds(c, ""), carrier.Query{Kind: "pallet", Value: "x"}); got.Status != carrier.LookupError {
		t.Errorf("bad query: %+v", got)
	}
}
