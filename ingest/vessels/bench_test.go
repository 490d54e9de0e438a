package vessels

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/contrack/contrack/ingest/sandbox"
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/searoute"
)

// BenchmarkVessels20000 sails 20,000 ships at sea and has each report
// once a minute, as AIS
// providers keep class A ships: 333 positions/s. It measures how long one
// minute's reports take the stage (simulate, write to Kafka and wait for
// the acknowledgements) — the rate it sustains is 20,000 over that — and
// then how fast the projector writes them into ClickHouse's
// vessel_positions. make bench runs it; it runs once whatever -benchtime.
func BenchmarkVessels20000(b *testing.B) {
	const ships = 20000
	const minutes = 5
	k := testenv.Kafka(b, 6)
	ch := testenv.ClickHouse(b)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	// 20,000 distinct ships, all at sea now, on passages between the port
	// table's sea ports (the sandbox's own fleets are too small to give
	// 20,000 distinct ships: its journeys reuse a few names per carrier).
	var seaPorts []searoute.Port
	for _, code := range []string{"CNSHA", "CNNGB", "CNYTN", "SGSIN", "KRPUS", "NLRTM", "DEHAM", "BEANR", "USLAX", "USNYC",
		"USSAV", "ESALG", "GRPIR", "AEJEA", "LKCMB", "BRSSZ", "AUMEL", "ZADUR", "JPTYO", "MAPTM"} {
		p, _ := searoute.LookupPort(code)
		seaPorts = append(seaPorts, p)
	}
	start := time.Now()
	var voyages []Voyage
	for i := 0; len(voyages) < ships; i++ {
		a, c := seaPorts[i%len(seaPorts)], seaPorts[(i/len(seaPorts)+1+i)%len(seaPorts)]
		if a.Code == c.Code {
			continue
		}
		six := fmt.Sprintf("9%05d", i%100000)
		d, _ := journey.IMOCheckDigit(six)
		dep := now.Add(-time.Duration(1+i%48) * time.Hour)
		v, ok := NewVoyage(fmt.Sprintf("%s%d", six, d), fmt.Sprintf("%03dW", i/100000), searoute.Point{Lat: a.Lat, Lon: a.Lon},
			searoute.Point{Lat: c.Lat, Lon: c.Lon}, a.Code, c.Code, dep, dep.Add(time.Duration(10+i%20)*24*time.Hour))
		if !ok {
			b.Fatalf("no voyage %s-%s", a.Code, c.Code)
		}
		voyages = append(voyages, v)
	}
	b.Logf("planned %d voyages in %s", len(voyages), time.Since(start).Round(time.Millisecond))
	m, _ := newMetrics(nil)
	prod := testenv.KafkaClient(b, k.Brokers)
	s := &simulator{cfg: Config{}.WithDefaults(), deps: Deps{Producer: prod, Namespace: k.NS, Log: testenv.Log(b)}, m: m,
		sbx: sandbox.Config{}.WithDefaults(), voyages: voyages}
	b.ResetTimer()
	var reported int
	var busiest time.Duration
	{ // once, whatever b.N: the figure is the minute's, not per op
		for minute := range minutes {
			at := now.Add(time.Duration(minute) * time.Minute)
			n := 0
			for _, v := range voyages {
				if v.Reports(at) {
					n++
				}
			}
			t0 := time.Now()
			if err := s.report(context.Background(), at); err != nil {
				b.Fatal(err)
			}
			busiest = max(busiest, time.Since(t0))
			reported += n
		}
	}
	b.StopTimer()
	perMinute := reported / minutes
	b.Logf("stage: %d ships reporting, %d reports a minute (%.0f/s needed); the slowest minute's reports took %s: sustains %.0f positions/s (%.1f%% of the minute)",
		perMinute, perMinute, float64(perMinute)/60, busiest.Round(time.Millisecond), float64(perMinute)/busiest.Seconds(), 100*busiest.Seconds()/60)
	b.ReportMetric(float64(perMinute)/busiest.Seconds(), "positions/s")

	t0 := time.Now()
	stop := testenv.RunStage(b, "projector", func(ctx context.Context) error {
		return projector.Run(ctx, projector.Config{}, projector.Deps{Brokers: k.Brokers, Namespace: k.NS, CH: ch.Conn, Log: testenv.Log(b)})
	})
	var rows uint64
	testkit.Eventually(b, 5*time.Minute, "every report in vessel_positions", func() bool {
		if err := ch.Conn.QueryRow(context.Background(), `SELECT count() FROM vessel_positions WHERE env = ?`, schemas.EnvSandbox).Scan(&rows); err != nil {
			b.Fatal(err)
		}
		return rows >= uint64(reported)
	})
	took := time.Since(t0)
	stop()
	b.Logf("projector: %d reports into vessel_positions in %s: %.0f positions/s", rows, took.Round(time.Millisecond), float64(rows)/took.Seconds())
}
