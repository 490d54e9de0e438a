package auth

import (
	"testing"
	"time"
)

// TestHashLRUIsBoundedAndExpires: the negative cache never holds more than
// its bound (the oldest goes first) and forgets entries after their TTL.
func TestHashLRUIsBoundedAndExpires(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newHashLRU(3)
	sum := func(b byte) [32]byte { return [32]byte{b} }
	for b := range byte(10) {
		l.add(sum(b), now.Add(time.Minute))
		if l.len() > 3 {
			t.Fatalf("holds %d > 3", l.len())
		}
	}
	for b := range byte(7) {
		if l.contains(sum(b), now) {
			t.Errorf("evicted %d still present", b)
		}
	}
	for b := byte(7); b < 10; b++ {
		if !l.contains(sum(b), now) {
			t.Errorf("recent %d missing", b)
		}
	}
	if l.contains(sum(9), now.Add(time.Minute)) {
		t.Error("expired entry still present")
	}
	if l.len() != 2 {
		t.Errorf("expired entry not dropped: %d", l.len())
	}
}
