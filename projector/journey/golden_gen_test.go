package journey_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/contrack/contrack/projector/journey"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
)

var updateQueryTime = flag.Bool("update-querytime", false, "write testdata/querytime/ from the query-time builder")

// TestWriteQueryTimeGolden writes, with -update-querytime, what the
// query-time builder returned after every poll of each sandbox journey.
func TestWriteQueryTimeGolden(t *testing.T) {
	if !*updateQueryTime {
		t.Skip("-update-querytime not given")
	}
	for _, c := range sandboxCases() {
		st := &journey.State{}
		st.ApplySubscription(schemas.SubscriptionChanged{AccountID: "acct", Env: "sandbox", TrackingID: "trk", SCAC: c.SCAC,
			IdentifierKind: string(c.Kind), Identifier: c.Value, TrackingOpen: true, OccurredAt: sandboxStart})
		seen := map[string]string{}
		var out bytes.Buffer
		polls := c.polls()
		for i, at := range polls {
			for _, rec := range Poll(t, c, at, seen) {
				st.ApplyEvent(rec)
			}
			var latest []dcsa.Event
			for _, s := range st.Events {
				var ev dcsa.Event
				json.Unmarshal(s.Event, &ev)
				latest = append(latest, ev)
			}
			rs := legacyBuild(string(c.Kind), c.Value, c.SCAC, "OPEN", latest, "")
			for i := range rs {
				rs[i].EnhancedEvents = legacyKinds(rs[i].EnhancedEvents)
			}
			b, _ := json.Marshal(rs)
			sum := sha256.Sum256(b)
			line := goldenPoll{Poll: i + 1, At: at, SHA256: hex.EncodeToString(sum[:]), Count: len(rs)}
			if i+1 == len(polls)/2 || i+1 == len(polls) {
				line.Results = b
			}
			l, _ := json.Marshal(line)
			out.Write(l)
			out.WriteByte('\n')
		}
		os.MkdirAll("testdata/querytime", 0o755)
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zw.Write(out.Bytes())
		zw.Close()
		if err := os.WriteFile(filepath.Join("testdata/querytime", c.SCAC+"-"+string(c.Kind)+".jsonl.gz"), z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
