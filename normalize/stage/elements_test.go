package stage_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/pushed"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/normalize/tnt22"
	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/platform/testkit"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/carriers"
)

// One element of a polled page that cannot be read is dead-lettered by
// itself, with its index and reason; the page's other events are produced,
// and the deviations repaired in them are counted by carrier and kind, in
// the metric and in normalize_repairs.
func TestStageDeadLettersOneElementAndProducesTheRest(t *testing.T) {
	db := testenv.Postgres(t)
	kc := testenv.Kafka(t, 1)
	reg := prometheus.NewRegistry()
	h := harness{t: t, brokers: kc.Brokers, kc: kc, prod: testenv.KafkaClient(t, kc.Brokers)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- stage.Run(ctx, stage.Config{RoutingWait: 5 * time.Second}, stage.Deps{
			Brokers: kc.Brokers, Namespace: kc.NS, Pool: db.Pool, Log: testenv.Log(t), Registry: reg,
			Parsers: map[carriers.Format]normalize.Parser{carriers.FormatTNT22: tnt22.Parse, carriers.FormatPushed: pushed.Parse},
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("stage shutdown: %v", err)
		}
	})

	const good = `{"eventID":"0b7c6a4e-1f2d-4c3b-9a8e-7d6c5b4a3f21","eventCreatedDateTime":"2026-03-01T10:00:00Z","eventType":"EQUIPMENT",
	  "eventClassifierCode":"ACT","eventDateTime":"2026-03-01T09:30:00+01:00","equipmentEventTypeCode":"GTIN",
	  "equipmentReference":"MSCU1234565","emptyIndicatorCode":"LADEN","eventLocation":{"unLocationCode":"NLRTM"}}`
	bad := strings.Replace(strings.Replace(good, `"eventDateTime":"2026-03-01T09:30:00+01:00",`, "", 1), "0b7c6a4e", "1b7c6a4e", 1)
	last := strings.Replace(strings.Replace(good, `"GTIN"`, `"GTOT"`, 1), "0b7c6a4e", "2b7c6a4e", 1)
	page := []byte("[" + good + "," + bad + "," + last + "]")
	h.raw(carriers.FormatTNT22, "trk-1", page)

	events := collect(t, kc.Brokers, kc.Topic(schemas.TopicEvents), 2, 15*time.Second)
	if len(events) != 2 {
		t.Fatalf("events = %d, want the page's two good ones", len(events))
	}
	for i, code := range []string{"GTIN", "GTOT"} {
		rec, ev := decode(t, events[i])
		if rec.TrackingID != "trk-1" || ev.EquipmentEventTypeCode != code || ev.EventLocation == nil || ev.EventLocation.UNLocationCode != "NLRTM" {
			t.Errorf("event %d: %+v (location %+v), want %s at NLRTM", i, rec, ev.EventLocation, code)
		}
	}
	dl := collect(t, kc.Brokers, kc.Topic(schemas.TopicNormalizeDeadLetters), 1, 10*time.Second)
	if len(dl) != 1 {
		t.Fatalf("dead letters = %d, want the refused element's", len(dl))
	}
	if reason := kafka.Header(dl[0], schemas.HeaderDLQReason); reason != "tnt22: [1].eventDateTime: required" ||
		kafka.Header(dl[0], "element") != "1" || string(dl[0].Value) != string(page) || kafka.Header(dl[0], "tracking") != "trk-1" {
		t.Errorf("dead letter: reason %q, element %q, tracking %q", reason, kafka.Header(dl[0], "element"), kafka.Header(dl[0], "tracking"))
	}
	if n := testkit.Counter(t, reg, "contrack_normalize_refused_elements_total", map[string]string{"scac": "MAEU"}); n != 1 {
		t.Errorf("refused elements counted %v, want 1", n)
	}
	// Two good elements read their UN/LOCODE from unLocationCode.
	if n := testkit.Counter(t, reg, "contrack_normalize_repairs_total", map[string]string{"scac": "MAEU", "kind": "member_case"}); n != 2 {
		t.Errorf("member_case repairs counted %v, want 2", n)
	}
	// Saved off the transactions' path, by the repairs saver.
	testkit.Wait(t, 10*time.Second, "the repairs in normalize_repairs", func() (bool, any) {
		var n int64
		var path string
		err := db.Pool.QueryRow(context.Background(), `SELECT coalesce(sum(repairs), 0)::bigint, coalesce(max(last_path), '') FROM normalize_repairs
			WHERE scac = 'MAEU' AND env = 'sandbox' AND kind = 'member_case'`).Scan(&n, &path)
		return err == nil && n == 2 && path == "[2].eventLocation.unLocationCode", fmt.Sprintf("%d repairs, the last at %q (%v)", n, path, err)
	})
	// Beside them, for the data-quality figures: the events read and the
	// element refused, with its reason.
	var read, refused int64
	var reason string
	if err := db.Pool.QueryRow(context.Background(), `SELECT
			coalesce(sum(repairs) FILTER (WHERE kind = 'events_read'), 0)::bigint,
			coalesce(sum(repairs) FILTER (WHERE kind = 'refused'), 0)::bigint,
			coalesce(max(last_value) FILTER (WHERE kind = 'refused'), '')
		FROM normalize_repairs WHERE scac = 'MAEU' AND env = 'sandbox'`).Scan(&read, &refused, &reason); err != nil ||
		read != 2 || refused != 1 || reason != "tnt22: [1].eventDateTime: required" {
		t.Errorf("events read %d, refused %d (%q), %v; want 2 read, 1 refused", read, refused, reason, err)
	}
}
