package journeydate

import (
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
)

func TestDateReadsTheVariable(t *testing.T) {
	now := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"", Default},
		{"now", now},
		{"2025-03-10", time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)},
		{"2027-12-01T15:45:00+02:00", time.Date(2027, 12, 1, 13, 45, 0, 0, time.UTC)},
	} {
		got, err := Date(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("Date(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if _, err := Date("tomorrow", now); err == nil {
		t.Error("Date accepted \"tomorrow\"")
	}
}

// After Pin the journeys stand at the test's start where they stood at the
// pinned date: every container shows the events it showed then, the actual
// ones moved by the same distance in time (estimates are revised per cycle).
func TestPinShowsThePinnedDatesJourneys(t *testing.T) {
	saved := journey.Epoch
	t.Cleanup(func() { journey.Epoch = saved })
	date := time.Date(2025, 3, 10, 6, 0, 0, 0, time.UTC)
	t.Setenv(DateVariable, date.Format(time.RFC3339))
	t.Setenv(epochVariable, "")
	if _, err := Pin(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	shift := journey.Epoch.Sub(saved)
	if d := now.Sub(date) - shift; d < 0 || d > time.Minute {
		t.Fatalf("epoch moved by %s, want the %s from the date to now", shift, now.Sub(date))
	}
	for _, c := range []string{"MSKU9070323", "CSQU3054383", "SNTU0000019"} {
		pinned := journey.Generate("MAEU", journey.KindContainer, c, date.Add(shift))
		journey.Epoch = saved
		then := journey.Generate("MAEU", journey.KindContainer, c, date)
		journey.Epoch = saved.Add(shift)
		if len(pinned.Events) != len(then.Events) {
			t.Fatalf("%s: %d events after Pin, %d at the date", c, len(pinned.Events), len(then.Events))
		}
		for i := range then.Events {
			p, w := pinned.Events[i], then.Events[i]
			if p.Code != w.Code || p.Classifier != w.Classifier || (w.Classifier == journey.ACT && !p.Time.Equal(w.Time.Add(shift))) {
				t.Fatalf("%s event %d: %s %s at %s after Pin, %s %s at %s then", c, i, p.Code, p.Classifier, p.Time, w.Code, w.Classifier, w.Time)
			}
		}
	}
	// A process the test starts takes the same epoch.
	pinned := journey.Epoch
	journey.Epoch = saved
	if _, err := Pin(); err != nil {
		t.Fatal(err)
	}
	if !journey.Epoch.Equal(pinned) {
		t.Errorf("a second Pin set the epoch %s, want the first's %s", journey.Epoch, pinned)
	}
}
