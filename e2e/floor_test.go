package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestKafkaFloor(t *testing.T) {
	f, err := parseKafkaFloor("2ms,13ms")
	if err != nil || f == nil || f.p50 != 2*time.Millisecond || f.p99 != 13*time.Millisecond {
		t.Fatalf("parse 2ms,13ms: %+v, %v", f, err)
	}
	var out bytes.Buffer
	f.print(&out, summary{P50: 360 * time.Millisecond, P99: 677 * time.Millisecond})
	for _, want := range []string{"p50 360.0ms = 180.0×", "p99 677.0ms = 52.1×"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed %q, want %q in it", out.String(), want)
		}
	}
	// The tool truncates to whole milliseconds: 0 ms counts as 1.
	zero, err := parseKafkaFloor("0ms,3ms")
	if err != nil {
		t.Fatalf("parse 0ms,3ms: %v", err)
	}
	out.Reset()
	zero.print(&out, summary{P50: 20 * time.Millisecond, P99: 30 * time.Millisecond})
	if !strings.Contains(out.String(), "p50 20.0ms = 20.0×") {
		t.Errorf("printed %q, want p50 20.0ms = 20.0×", out.String())
	}
	for _, bad := range []string{"2ms", "x,13ms", "13ms,2ms"} {
		if _, err := parseKafkaFloor(bad); err == nil {
			t.Errorf("parse %q: no error", bad)
		}
	}
	if f, err := parseKafkaFloor(""); f != nil || err != nil {
		t.Errorf("parse empty: %+v, %v, want no floor", f, err)
	}
	var none bytes.Buffer
	(*kafkaFloor)(nil).print(&none, summary{P50: time.Second})
	if none.Len() != 0 {
		t.Errorf("no floor printed %q", none.String())
	}
}
