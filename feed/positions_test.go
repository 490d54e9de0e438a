package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
)

// TestVesselPositionItems: the refresher finds, from each opted-in
// subscription's journey in ClickHouse, the vessel it is at sea on (a
// sandbox ship by IMO number and voyage, a live one by IMO number; none
// once arrived), and a report becomes an item for each opted-in
// subscription at sea on that vessel since before the report, at most
// every interval of the reports' times; a subscription of the same
// tracking not opted in, another voyage of the ship, a report consumed
// again and an arrived journey's ship get nothing.
func TestVesselPositionItems(t *testing.T) {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	departed := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second)
	transport := func(typ, classifier string, at time.Time, imo, voyage, port string) string {
		return fmt.Sprintf(`{"eventType":"TRANSPORT","eventClassifierCode":%q,"eventDateTime":%q,"transportEventTypeCode":%q,
			"transportCall":{"carrierVoyageNumber":%q,"UNLocationCode":%q,"modeOfTransport":"VESSEL","vessel":{"vesselIMONumber":%q,"vesselName":"SHIP %s"}}}`,
			classifier, at.Format(time.RFC3339), typ, voyage, port, imo, imo)
	}
	cols := []string{"account_id", "env", "tracking_id", "scac", "event_id", "content_hash", "event_type", "classifier", "type_code",
		"equipment_reference", "location", "event_time", "event_json", "emitted_at", "version"}
	event := func(acct, env, tracking, typ, eq, js string) {
		t.Helper()
		if err := clickhouse.Insert(ctx, ch.Conn, "events", cols, []any{acct, env, tracking, "MAEU", uuid.NewString(), "h", typ, "ACT", "", eq, "",
			departed, js, time.Now().UTC(), uint64(1)}); err != nil {
			t.Fatal(err)
		}
	}
	type sub struct{ id, ref string }
	newAccount := func(env string) string {
		id := uuid.NewString()
		exec(`INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', $2, 'acme')`, id, env)
		return id
	}
	newTracking := func(acct, env, container string, subs ...sub) string {
		id := uuid.NewString()
		exec(`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			VALUES ($1, $2, $3, 'MAEU', 'container', $4, 'CONNECTED')`, id, acct, env, container)
		for _, s := range subs {
			exec(`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
				VALUES ($1, $2, $3, $4, 'MAEU', $5, 'OPEN', now(), now() + interval '1 day')`, s.id, acct, s.ref, id, container)
		}
		return id
	}
	optIn := func(acct, subID string, minutes int) {
		exec(`INSERT INTO feed_vessel_positions (subscription_id, account_id, interval_minutes) VALUES ($1, $2, $3)`, subID, acct, minutes)
	}

	// A sandbox container at sea on 9632179 voyage 412W: one subscription
	// opted in (5 min), one not; another at sea until it arrived, opted in.
	sbx := newAccount("sandbox")
	on, off, arrived := sub{uuid.NewString(), "on"}, sub{uuid.NewString(), "off"}, sub{uuid.NewString(), "arrived"}
	tSea := newTracking(sbx, "sandbox", "MSKU1234565", on, off)
	event(sbx, "sandbox", tSea, "TRANSPORT", "", transport("DEPA", "ACT", departed, "9632179", "412W", "CNSHA"))
	event(sbx, "sandbox", tSea, "TRANSPORT", "", transport("ARRI", "EST", departed.Add(20*24*time.Hour), "9632179", "412W", "NLRTM"))
	event(sbx, "sandbox", tSea, "EQUIPMENT", "MSKU1234565", `{"eventType":"EQUIPMENT","equipmentEventTypeCode":"LOAD"}`)
	tArr := newTracking(sbx, "sandbox", "MSKU7654321", arrived)
	event(sbx, "sandbox", tArr, "TRANSPORT", "", transport("DEPA", "ACT", departed.Add(-10*24*time.Hour), "9321483", "100E", "CNSHA"))
	event(sbx, "sandbox", tArr, "TRANSPORT", "", transport("ARRI", "ACT", departed.Add(-time.Hour), "9321483", "100E", "SGSIN"))
	optIn(sbx, on.id, 5)
	optIn(sbx, arrived.id, 5)
	// A live container at sea on 9811000 (live reports have no voyage).
	live := newAccount("live")
	l := sub{uuid.NewString(), "live"}
	tLive := newTracking(live, "live", "HLXU1234566", l)
	event(live, "live", tLive, "TRANSPORT", "", transport("DEPA", "ACT", departed, "9811000", "031W", "USNYC"))
	event(live, "live", tLive, "TRANSPORT", "", transport("ARRI", "EST", departed.Add(9*24*time.Hour), "9811000", "031W", "NLRTM"))
	optIn(live, l.id, 60)

	m, err := newPositionMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &positions{cfg: Config{}.WithDefaults(), log: testenv.Log(t), pool: db.Pool, ch: ch.Conn, now: time.Now, m: m}
	if err := p.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	vessel := func(subID string) string {
		var v string
		if err := db.Pool.QueryRow(ctx, `SELECT concat_ws('|', vessel_env, vessel_imo, vessel_voyage, vessel_name, voyage_number,
			array_to_string(containers, ','), to_char(departed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'))
			FROM feed_vessel_positions WHERE subscription_id = $1`, subID).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	dep := departed.Format("2006-01-02T15:04:05")
	for subID, want := range map[string]string{
		on.id:      "sandbox|9632179|412W|SHIP 9632179|412W|MSKU1234565|" + dep,
		arrived.id: "",
		l.id:       "live|9811000||SHIP 9811000|031W||" + dep,
	} {
		if got := vessel(subID); got != want {
			t.Errorf("subscription %s at sea on %q, want %q", subID, got, want)
		}
	}

	offset := int64(0)
	report := func(env, imo, voyage string, at time.Time) *kgo.Record {
		v, err := schemas.VesselPosition{Env: env, IMO: imo, Voyage: voyage, At: at, Lat: 12.345678, Lon: 45.678912, SpeedKnots: 17.04,
			Course: 271.26, NavStatus: schemas.NavUnderWayEngine, Source: "test"}.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		offset++
		return &kgo.Record{Value: v, Offset: offset, Headers: []kgo.RecordHeader{{Key: schemas.HeaderType, Value: []byte(schemas.TypeVesselPosition)}}}
	}
	t1 := departed.Add(24 * time.Hour)
	replayed := report("sandbox", "9632179", "412W", t1.Add(5*time.Minute))
	for _, r := range []*kgo.Record{
		report("sandbox", "9632179", "412W", departed.Add(-time.Hour)), // before the departure: not this passage
		report("sandbox", "9632179", "412W", t1),                       // on: an item
		report("sandbox", "9632179", "412W", t1.Add(2*time.Minute)),    // within 5 minutes of it
		replayed, // on: an item
		replayed, // consumed again
		report("sandbox", "9632179", "999X", t1.Add(time.Hour)), // another voyage of the ship
		report("live", "9632179", "", t1.Add(time.Hour)),        // a live ship with the same number
		report("sandbox", "9321483", "100E", t1),                // the arrived journey's ship
		report("live", "9811000", "", t1),                       // live: an item
		report("live", "9811000", "", t1.Add(30*time.Minute)),   // within its 60 minutes
	} {
		if err := p.handle(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Pool.Query(ctx, `SELECT f.account_id::text, f.seq, s.reference, convert_from(f.event, 'UTF8')
		FROM feed_items f JOIN subscriptions s ON s.id = f.subscription_id WHERE f.kind = 'VESSEL_POSITION' ORDER BY f.account_id, f.seq`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var acct, ref, js string
		var seq int64
		if err := rows.Scan(&acct, &seq, &ref, &js); err != nil {
			t.Fatal(err)
		}
		var v schemas.FeedVesselPosition
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			t.Fatalf("item %s: %v", js, err)
		}
		if v.Latitude != 12.34568 || v.Longitude != 45.67891 || v.SpeedKnots != 17 || v.Course != 271.3 {
			t.Errorf("item %+v: position not as reported (rounded)", v)
		}
		got = append(got, fmt.Sprintf("%s %s %s %s %v", ref, v.Vessel.IMO, v.CarrierVoyageNumber, v.At, v.EquipmentNumbers))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ms := "2006-01-02T15:04:05.000Z"
	want := map[string]bool{
		fmt.Sprintf("on 9632179 412W %s [MSKU1234565]", t1.Format(ms)):                    true,
		fmt.Sprintf("on 9632179 412W %s [MSKU1234565]", t1.Add(5*time.Minute).Format(ms)): true,
		fmt.Sprintf("live 9811000 031W %s []", t1.Format(ms)):                             true,
	}
	if len(got) != len(want) {
		t.Fatalf("items %q, want %v", got, want)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("item %q not expected; want %v", g, want)
		}
	}

	// The ship arrives: the next refresh takes the vessel off, and its
	// reports make no more items.
	event(sbx, "sandbox", tSea, "TRANSPORT", "", transport("ARRI", "ACT", t1.Add(time.Hour), "9632179", "412W", "NLRTM"))
	if err := p.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if v := vessel(on.id); v != "" {
		t.Fatalf("after the arrival at sea on %q", v)
	}
	if err := p.handle(ctx, report("sandbox", "9632179", "412W", t1.Add(50*time.Minute))); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM feed_items WHERE kind = 'VESSEL_POSITION'`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d items after the arrival (%v), want still 3", n, err)
	}
}
