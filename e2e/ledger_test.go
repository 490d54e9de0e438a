package main

import (
	"testing"
	"time"
)

// The ledger's verdicts, on hand-made histories.
func TestLedgerVerdicts(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	send := func(l *ledger, ct string, seq, sentMS, ackMS int) {
		k := []eventKey{{ct, seq}}
		l.sent(k, at(sentMS), at(sentMS))
		l.acked(k, ackMS >= 0, "refused", at(ackMS))
	}
	cases := []struct {
		name                          string
		history                       func(l *ledger)
		missing, dups, order, unknown int
	}{
		{"in order", func(l *ledger) {
			send(l, "C1", 1, 0, 5)
			send(l, "C1", 2, 10, 15)
			l.received("C1", eventTime(1), "C1", at(20))
			l.received("C1", eventTime(2), "C1", at(25))
		}, 0, 0, 0, 0},
		{"acknowledged, then overtaken by a later event", func(l *ledger) {
			send(l, "C1", 1, 0, 5)
			send(l, "C1", 2, 10, 15)
			l.received("C1", eventTime(2), "C1", at(20))
			l.received("C1", eventTime(1), "C1", at(20)) // same instant, later in the payload
		}, 0, 0, 1, 0},
		{"in flight together: no order between them", func(l *ledger) {
			send(l, "C1", 1, 0, 15)
			send(l, "C1", 2, 5, 10)
			l.received("C1", eventTime(2), "C1", at(20))
			l.received("C1", eventTime(1), "C1", at(21))
		}, 0, 0, 0, 0},
		{"missing and duplicate", func(l *ledger) {
			send(l, "C1", 1, 0, 5)
			send(l, "C1", 2, 10, 15)
			l.received("C1", eventTime(1), "C1", at(20))
			l.received("C1", eventTime(1), "C1", at(30))
		}, 1, 1, 0, 0},
		{"refused events are not missing", func(l *ledger) {
			send(l, "C1", 1, 0, -1)
		}, 0, 0, 0, 0},
		{"unknown event", func(l *ledger) {
			send(l, "C1", 1, 0, 5)
			l.received("C1", eventTime(1), "C1", at(20))
			l.received("C9", eventTime(7), "C9", at(20))
		}, 0, 0, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLedger()
			c.history(l)
			s := l.summary(t0)
			if s.Missing != c.missing || s.Duplicates != c.dups || s.OrderErrors != c.order || s.Unknown != c.unknown {
				t.Errorf("missing %d duplicates %d order %d unknown %d; want %d %d %d %d",
					s.Missing, s.Duplicates, s.OrderErrors, s.Unknown, c.missing, c.dups, c.order, c.unknown)
			}
			if s.balanced() != (c.missing == 0 && c.unknown == 0) {
				t.Errorf("balanced %v", s.balanced())
			}
		})
	}
}

// Recovery runs from a fault until the last delayed event arrived.
func TestLedgerRecovery(t *testing.T) {
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	l := newLedger()
	deliver := func(seq, sentMS, recvMS int) {
		k := []eventKey{{"C1", seq}}
		l.sent(k, at(sentMS), at(sentMS))
		l.acked(k, true, "", at(sentMS+1))
		l.received("C1", eventTime(seq), "C1", at(recvMS))
	}
	deliver(1, 0, 20)        // before the fault, prompt
	deliver(2, 900, 2_000)   // delayed 1.1 s by the fault at 1,000 ms
	deliver(3, 1_500, 6_000) // delayed 4.5 s: the last slow one arrives at 6,000 ms
	deliver(4, 5_990, 6_010) // prompt again
	deliver(5, 7_000, 7_020)
	if got := l.recovery(at(1_000), time.Second); got != 5*time.Second {
		t.Fatalf("recovery %s, want 5s (fault at 1 s, last delayed event at 6 s)", got)
	}
	if got := l.recovery(at(6_500), time.Second); got != 0 {
		t.Fatalf("recovery after the last delay %s, want 0", got)
	}
}
