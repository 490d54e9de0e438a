package queryapi_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/queryapi"
	"github.com/contrack/contrack/schemas/dcsa"
)

func TestJourneysByBookingNarrowedByEquipment(t *testing.T) {
	db := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	api := testenv.NewAPI(t, db.Pool, func(s *fuego.Server) {
		queryapi.Register(s, queryapi.Deps{Pool: db.Pool, CH: ch.Conn, TokenKey: []byte("k")})
	})
	ctx := context.Background()
	key, k, _ := api.Store.CreateKey(ctx, auth.CreateKeyParams{ClientSlug: "acme", Env: "sandbox"})
	other := api.Key(auth.CreateKeyParams{ClientSlug: "globex", Env: "sandbox"})
	tracking := uuid.NewString()
	db.Pool.Exec(ctx, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status, open_subscriptions)
		VALUES ($1, $2, 'sandbox', 'HLCU', 'booking', 'BK1', 'CONNECTED', 0)`, tracking, k.Account.ID)
	db.Pool.Exec(ctx, `INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, booking_number, status, created_at, expires_at)
		VALUES ($1, $2, 'R1', $3, 'HLCU', 'BK1', 'CLOSED', now(), now())`, uuid.NewString(), k.Account.ID, tracking)

	ev := func(id, typ, code, container, place, when, classifier string) []any {
		e := dcsa.Event{EventID: id, EventType: typ, EventClassifierCode: classifier, EventDateTime: when, EventCreatedDateTime: when, EquipmentReference: container}
		if typ == dcsa.EventTypeEquipment {
			e.EquipmentEventTypeCode, e.EmptyIndicatorCode, e.EventLocation = code, "LADEN", &dcsa.Location{UNLocationCode: place}
		} else {
			e.TransportEventTypeCode, e.TransportCall = code, &dcsa.TransportCall{TransportCallID: "tc", ModeOfTransport: "VESSEL", UNLocationCode: place}
		}
		b, _ := json.Marshal(e)
		at, _ := time.Parse(time.RFC3339, when)
		return []any{k.Account.ID, "sandbox", tracking, "HLCU", id, "h", typ, classifier, code, container, place, at.UTC(), string(b), time.Now().UTC().Truncate(time.Second), uint64(1)}
	}
	rows := [][]any{
		ev("e1", "EQUIPMENT", "LOAD", "CSQU3054383", "CNSHA", "2026-10-01T10:00:00Z", "ACT"),
		ev("e2", "EQUIPMENT", "DISC", "CSQU3054383", "SGSIN", "2026-10-08T10:00:00Z", "ACT"),
		ev("e3", "EQUIPMENT", "LOAD", "CSQU3054383", "SGSIN", "2026-10-09T10:00:00Z", "ACT"),
		ev("e4", "EQUIPMENT", "DISC", "CSQU3054383", "NLRTM", "2026-11-30T10:00:00Z", "EST"),
		ev("e5", "EQUIPMENT", "LOAD", "MSKU9070323", "CNSHA", "2026-10-01T11:00:00Z", "ACT"),
		ev("e6", "TRANSPORT", "ARRI", "", "NLRTM", "2026-11-30T08:00:00Z", "EST"),
	}
	cols := []string{"account_id", "env", "tracking_id", "scac", "event_id", "content_hash", "event_type", "classifier", "type_code",
		"equipment_reference", "location", "event_time", "event_json", "emitted_at", "version"}
	if err := clickhouse.Insert(ctx, ch.Conn, "events", cols, rows...); err != nil {
		t.Fatal(err)
	}
	// A newer version of e4: the estimate moved.
	moved := ev("e4", "EQUIPMENT", "DISC", "CSQU3054383", "NLRTM", "2026-12-02T10:00:00Z", "EST")
	moved[14] = uint64(2)
	if err := clickhouse.Insert(ctx, ch.Conn, "events", cols, moved); err != nil {
		t.Fatal(err)
	}

	r := api.Do("GET", "/subscription/equipment?bookingNumber=BK1", key, nil)
	if r.Status != 200 || r.JSON["count"] != float64(2) {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	r = api.Do("GET", "/subscription/equipment?bookingNumber=BK1&equipmentNumber=CSQU3054383", key, nil)
	results := r.JSON["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("narrowed: %s", r.Raw)
	}
	j := results[0].(map[string]any)
	if j["POL"] != "CNSHA" || j["POD"] != "NLRTM" || j["lastLocation"] != "SGSIN" || j["trackingStatus"] != "CLOSED" || j["scacCode"] != "HLCU" {
		t.Fatalf("journey: %v", j)
	}
	src := j["sourceEvents"].([]any)
	if len(src) != 4 || src[3].(map[string]any)["eventDateTime"] != "2026-12-02T10:00:00Z" {
		t.Fatalf("source events (latest version, time order): %v", src)
	}
	enh, _ := json.Marshal(j["enhancedEvents"])
	if string(enh) != `[{"UNLocationCode":"SGSIN","enhancedEventType":"TRANSSHIPMENT","eventDateTime":"2026-10-08T10:00:00Z"},{"UNLocationCode":"NLRTM","enhancedEventType":"ETA_POD","eventDateTime":"2026-11-30T08:00:00Z"}]` {
		t.Fatalf("enhanced: %s", enh)
	}
	if len(j["vesselEvents"].([]any)) != 1 {
		t.Fatalf("vessel events: %v", j["vesselEvents"])
	}
	if r := api.Do("GET", "/subscription/equipment?bookingNumber=BK1", other, nil); r.JSON["count"] != float64(0) {
		t.Fatalf("other account: %s", r.Raw)
	}
}
