package ingest

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAtMost returns the body, whatever length was announced (none, the
// right one, too short or too long), read in pieces or at once, cut at the
// limit; a read error comes back.
func TestReadAtMost(t *testing.T) {
	const limit = 100
	for _, c := range []struct {
		name      string
		body      string
		announced int64
		want      string
	}{
		{"announced", strings.Repeat("a", 60), 60, strings.Repeat("a", 60)},
		{"unannounced (chunked)", strings.Repeat("b", 60), -1, strings.Repeat("b", 60)},
		{"announced too short", strings.Repeat("c", 90), 10, strings.Repeat("c", 90)},
		{"announced too long", "short", 80, "short"},
		{"empty", "", 0, ""},
		{"at the limit", strings.Repeat("d", limit), limit, strings.Repeat("d", limit)},
		{"over the limit", strings.Repeat("e", 3*limit), 3 * limit, strings.Repeat("e", limit)},
		{"over the limit, unannounced", strings.Repeat("f", 3*limit), -1, strings.Repeat("f", limit)},
	} {
		for _, r := range []struct {
			name string
			r    func(string) io.Reader
		}{
			{"whole", func(s string) io.Reader { return strings.NewReader(s) }},
			{"byte by byte", func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) }},
			{"data with EOF", func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) }},
		} {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				got, err := readAtMost(r.r(c.body), c.announced, limit)
				if err != nil || !bytes.Equal(got, []byte(c.want)) {
					t.Fatalf("got %q, %v; want %q", got, err, c.want)
				}
			})
		}
	}
	boom := errors.New("boom")
	if _, err := readAtMost(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(boom)), 10, limit); !errors.Is(err, boom) {
		t.Fatalf("error %v, want the read error", err)
	}
}

// A body of the announced length is read into one allocation.
func TestReadAtMostAllocatesOnceWhenAnnounced(t *testing.T) {
	body := strings.Repeat("x", 6000)
	r := strings.NewReader(body)
	allocs := testing.AllocsPerRun(50, func() {
		r.Reset(body)
		if _, err := readAtMost(r, int64(len(body)), MaxEventsBodyBytes+1); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Fatalf("%.0f allocations per body, want 1", allocs)
	}
}
