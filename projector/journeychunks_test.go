package projector

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// splitSource rewrites a chunk when its events changed, whether they are
// the very slices last written, copies of the same bytes, or other bytes.
func TestSplitSourceWritesChangedChunks(t *testing.T) {
	events := make([]json.RawMessage, 3*SourceChunkEvents+2)
	for i := range events {
		events[i] = json.RawMessage(fmt.Sprintf(`{"eventID":"e%03d"}`, i))
	}
	_, changed, marks := splitSource(events, nil, 1)
	if len(changed) != 4 || len(marks) != 4 {
		t.Fatalf("first write: %d chunks changed, %d marks, want 4", len(changed), len(marks))
	}

	// The same slices again, and then copies of their bytes: nothing to write,
	// every chunk keeps the version it was written with.
	for name, again := range map[string][]json.RawMessage{"same slices": events, "copies": cloneEach(events)} {
		versions, changed, _ := splitSource(again, marks, 2)
		if len(changed) != 0 || !slices.Equal(versions, []uint64{1, 1, 1, 1}) {
			t.Fatalf("%s: %d chunks changed, versions %v", name, len(changed), versions)
		}
	}

	// Chunk 1's fourth event changes to bytes of the same length; then an
	// event is added, which extends the last chunk.
	next := cloneEach(events)
	next[SourceChunkEvents+3] = json.RawMessage(`{"eventID":"x011"}`)
	versions, changed, marks := splitSource(next, marks, 3)
	if len(changed) != 1 || changed[0].index != 1 || !slices.Equal(versions, []uint64{1, 3, 1, 1}) {
		t.Fatalf("a changed event: chunks %v changed, versions %v", indexes(changed), versions)
	}
	next = append(next, json.RawMessage(`{"eventID":"e026"}`))
	versions, changed, _ = splitSource(next, marks, 4)
	if len(changed) != 1 || changed[0].index != 3 || !slices.Equal(versions, []uint64{1, 3, 1, 4}) {
		t.Fatalf("an added event: chunks %v changed, versions %v", indexes(changed), versions)
	}
	var got []json.RawMessage
	if err := json.Unmarshal(changed[0].events, &got); err != nil || len(got) != 3 {
		t.Fatalf("the last chunk: %s (%v)", changed[0].events, err)
	}
}

func cloneEach(events []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(events))
	for i, e := range events {
		out[i] = slices.Clone(e)
	}
	return out
}

func indexes(chunks []sourceChunk) []int {
	var out []int
	for _, c := range chunks {
		out = append(out, c.index)
	}
	return out
}
