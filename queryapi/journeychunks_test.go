package queryapi

import "testing"

// A row's source events are its chunks joined, each at the version the row
// names; when that version is gone (merged away under a newer one written
// ahead of its row) the newest is taken, never an older one.
func TestSourceEventsJoinTheNamedChunkVersions(t *testing.T) {
	id := journeyID{tracking: "t", equipment: "MSKU9070323"}
	r := &journeyRow{id: id, chunks: []uint64{3, 7}}
	chunks := map[chunkID][]chunkVersion{
		{id, 0}: {{9, `[{"v":9}]`}, {3, `[{"a":1},{"b":2}]`}, {2, `[{"v":2}]`}},
		{id, 1}: {{5, `[{"v":5}]`}, {8, `[{"c":3}]`}, {6, `[{"v":6}]`}},
	}
	got, err := r.sourceEvents(chunks)
	if err != nil || got != `[{"a":1},{"b":2},{"c":3}]` {
		t.Fatalf("joined %s %v", got, err)
	}
	if _, err := r.sourceEvents(map[chunkID][]chunkVersion{{id, 0}: chunks[chunkID{id, 0}]}); err == nil {
		t.Fatal("a missing chunk joined without error")
	}
	legacy := &journeyRow{id: id, src: `[{"x":1}]`}
	if got, err := legacy.sourceEvents(nil); err != nil || got != `[{"x":1}]` {
		t.Fatalf("a row without chunks: %s %v", got, err)
	}
}
