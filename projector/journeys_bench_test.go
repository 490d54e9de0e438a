package projector

import (
	"context"
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
)

// BenchmarkJourneyChange: what one change (one changed event) of a tracking
// holding 20 or 500 events costs the journey projection, states in memory:
// applying it, deriving the journeys and writing them and the state to
// ClickHouse. Each batch changes one event of each of 50 trackings.
// cpu-ns/change is this process's CPU time (user and system: ClickHouse's
// is not in it); journey-B and state-B/change count the bytes of the String
// values inserted into the journey tables (rows and chunks) and the state
// tables.
//
//	go test -run '^$' -bench JourneyChange -benchtime 2s ./projector/
func BenchmarkJourneyChange(b *testing.B) {
	for _, events := range []int{20, 500} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			ch := testenv.ClickHouse(b)
			ctx := context.Background()
			p := newJourneyProjection(Config{}.WithDefaults(), Deps{CH: ch.Conn, Log: testenv.Log(b)}, 1)
			if err := EnsureJourneyTables(ctx, ch.Conn, 1); err != nil {
				b.Fatal(err)
			}
			const trackings = 50
			var seed []*kgo.Record
			for t := range trackings {
				seed = append(seed, benchSubscription(t))
				for e := range events {
					seed = append(seed, benchEvent(t, e, 0))
				}
			}
			if err := benchBatch(ctx, p, seed); err != nil {
				b.Fatal(err)
			}
			p.wrote = map[string]int64{}
			cpu := cpuTime(b)
			b.ResetTimer()
			for i := range b.N {
				recs := make([]*kgo.Record, 0, trackings)
				for t := range trackings {
					recs = append(recs, benchEvent(t, i%events, i+1))
				}
				if err := benchBatch(ctx, p, recs); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			changes := float64(b.N * trackings)
			var journeyRows, state int64
			for table, n := range p.wrote {
				if table == journeys.JourneysTable(1) || table == journeys.ChunksTable(1) {
					journeyRows += n
				} else {
					state += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/changes, "ns/change")
			b.ReportMetric(float64(cpuTime(b)-cpu)/changes, "cpu-ns/change")
			b.ReportMetric(float64(journeyRows)/changes, "journey-B/change")
			b.ReportMetric(float64(state)/changes, "state-B/change")
		})
	}
}

func benchBatch(ctx context.Context, p *journeyProjection, recs []*kgo.Record) error {
	b := batchOf(recs)
	order, err := p.apply(ctx, b)
	if err != nil {
		return err
	}
	_, err = p.write(ctx, b, order) // raises no alerts: p.raise is false
	return err
}

func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func batchOf(recs []*kgo.Record) *kafka.Batch { return &kafka.Batch{Records: recs} }

func benchTracking(t int) string { return fmt.Sprintf("trk-%04d", t) }

func benchSubscription(t int) *kgo.Record {
	v, _ := json.Marshal(schemas.SubscriptionChanged{ID: "c", AccountID: "acct", Env: "sandbox", TrackingID: benchTracking(t),
		SCAC: "MAEU", IdentifierKind: "booking", Identifier: fmt.Sprintf("BK%04d", t), TrackingOpen: true,
		OccurredAt: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)})
	return &kgo.Record{Topic: schemas.TopicSubscriptions, Key: []byte(benchTracking(t)), Value: v}
}

// benchEvent is version v of event e of tracking t: a sandbox-sized event
// (~700 bytes), every fifth a vessel event, the others of three containers.
func benchEvent(t, e, v int) *kgo.Record {
	at := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(e) * time.Hour)
	created := at.Add(time.Duration(v) * time.Minute).Format(time.RFC3339)
	seq := e
	ev := dcsa.Event{EventID: fmt.Sprintf("%s-e%d", benchTracking(t), e), EventCreatedDateTime: created, EventClassifierCode: "ACT",
		EventDateTime: at.Format(time.RFC3339), CarrierCode: "MAEU", FacilityTypeCode: "POTE",
		TransportCall: &dcsa.TransportCall{TransportCallID: fmt.Sprint("tc-", e/5), CarrierServiceCode: "AE7", CarrierVoyageNumber: "442W",
			TransportCallSequenceNumber: &seq, UNLocationCode: "SGSIN", FacilityCode: "PSAPP", FacilityCodeListProvider: "SMDG",
			ModeOfTransport: "VESSEL", Vessel: &dcsa.Vessel{VesselIMONumber: "9811000", VesselName: "MAERSK EMDEN", VesselFlag: "DK"}},
		DocumentReferences: []dcsa.DocumentReference{{DocumentReferenceType: dcsa.DocBooking, DocumentReferenceValue: fmt.Sprintf("BK%04d", t)}}}
	if e%5 == 0 {
		ev.EventType, ev.TransportEventTypeCode = dcsa.EventTypeTransport, "ARRI"
		if e%10 == 0 {
			ev.EventClassifierCode = "EST"
		}
	} else {
		ev.EventType, ev.EquipmentEventTypeCode = dcsa.EventTypeEquipment, []string{"LOAD", "DISC", "GTIN", "GTOT"}[e%4]
		ev.EquipmentReference, ev.ISOEquipmentCode, ev.EmptyIndicatorCode = fmt.Sprintf("MSKU907032%d", e%3), "45G1", "LADEN"
		ev.EventLocation = &dcsa.Location{LocationName: "Singapore", UNLocationCode: "SGSIN", FacilityCode: "PSAPP", FacilityCodeListProvider: "SMDG"}
	}
	raw, _ := json.Marshal(ev)
	rec, _ := json.Marshal(schemas.EventRecord{TrackingID: benchTracking(t), AccountID: "acct", Env: "sandbox", SCAC: "MAEU",
		EventID: ev.EventID, ContentHash: fmt.Sprint(e, "-", v), Update: v > 0, Event: raw, SourceID: "src", EmittedAt: time.Now()})
	return &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(benchTracking(t)), Value: rec}
}
