package projector

import (
	"encoding/json"
	"hash/maphash"
	"slices"

	"github.com/contrack/contrack/projector/journey"
)

// SourceChunkEvents is the number of a container's source events in one row
// of journey_chunks_g<N>. A change rewrites only the chunks whose events
// changed — one when events arrive in time order, as they mostly do — so
// writing a journey costs up to SourceChunkEvents events, not its history.
const SourceChunkEvents = 8

// chunkMark is what was last written of one chunk: the version it was
// written with, a hash of its bytes and its events. events is a copy of
// the chunk's slice headers (a sub-slice would pin the whole array Derive
// returned); the bytes are the state's own, never changed in place (a new
// version of an event is a new slice), so equal pointers mean equal bytes.
type chunkMark struct {
	version uint64
	hash    uint64
	size    int
	events  []json.RawMessage
}

// writtenChunks are the chunks last written of one tracking, per journey
// row (lookup and container: chunkKey). Kept in memory only: a tracking
// loaded from ClickHouse has none, and its next change writes every chunk.
type writtenChunks map[string][]chunkMark

func chunkKey(st *journey.State, equipment string) string {
	return st.Kind + "\x00" + st.Identifier + "\x00" + equipment
}

// sourceChunk is one chunk to write: its index and its events as a JSON array.
type sourceChunk struct {
	index  int
	events []byte
}

// chunkSeed keys the hashes of chunkMark (in memory only, never stored).
var chunkSeed = maphash.MakeSeed()

// splitSource splits a container's source events into chunks of
// SourceChunkEvents. It returns the version of every chunk (the journey
// row's source_chunks), the chunks that differ from prev (to write, with
// version), and the marks to remember once they are written.
func splitSource(events []json.RawMessage, prev []chunkMark, version uint64) (versions []uint64, changed []sourceChunk, marks []chunkMark) {
	n := (len(events) + SourceChunkEvents - 1) / SourceChunkEvents
	versions, marks = make([]uint64, n), make([]chunkMark, n)
	for i := range n {
		part := events[i*SourceChunkEvents : min(len(events), (i+1)*SourceChunkEvents)]
		if i < len(prev) && sameSlices(prev[i].events, part) {
			// The very events last written: most chunks of a long journey
			// on each change, known without reading their bytes.
			versions[i], marks[i] = prev[i].version, prev[i]
			continue
		}
		m := markOf(part)
		m.version = version
		if i < len(prev) && prev[i].hash == m.hash && prev[i].size == m.size {
			m.version = prev[i].version
		} else {
			changed = append(changed, sourceChunk{index: i, events: journey.AppendArray(nil, part)})
		}
		m.events = slices.Clone(part)
		versions[i], marks[i] = m.version, m
	}
	return versions, changed, marks
}

// sameSlices says a and b hold the same slices: same lengths, same first
// bytes in memory.
func sameSlices(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) || len(a[i]) > 0 && &a[i][0] != &b[i][0] {
			return false
		}
	}
	return true
}

// markOf hashes a chunk's events as they are, without building the chunk's
// JSON: only the chunks that changed are built.
func markOf(part []json.RawMessage) chunkMark {
	var h maphash.Hash
	h.SetSeed(chunkSeed)
	size := 0
	for _, e := range part {
		h.Write(e)
		h.WriteByte(0) // an event ends; the same bytes split otherwise differ
		size += len(e)
	}
	return chunkMark{hash: h.Sum64(), size: size}
}
