package queryapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
)

// Limits of GET /v3/events: the producer's own page size (3.0 lets the
// consumer's limit lower it, never raise it).
const (
	DefaultV3Limit = 100
	MaxV3Limit     = 1000
)

// v3Scope keeps GET /v3/events' cursors apart from other signed tokens.
const v3Scope = "v3events"

// V3Events is GET /v3/events' body: 3.0's GetEventsResponse.
type V3Events struct {
	Events []tnt3.Event `json:"events"`
}

// v3Cursor is the state a Next-Page-Cursor carries: where the page ended
// (version, event id) and a digest of the filters it was made for, which
// the next request must repeat, as 3.0 requires.
type v3Cursor struct {
	Account string `json:"a"`
	Scope   string `json:"s"`
	Filters string `json:"f"`
	Version uint64 `json:"v"`
	EventID string `json:"e"`
}

// v3Query is a GET /v3/events request's filters.
type v3Query struct {
	booking, document, equipment string
	types                        map[string]bool
	min, max                     *time.Time
	limit                        int
	cursor                       *v3Cursor
}

// digest is a hash of the filters (not limit and cursor), for the cursor.
func (q v3Query) digest(raw url.Values) string {
	h := sha256.New()
	for _, k := range []string{"carrierBookingReference", "transportDocumentReference", "equipmentReference", "eventTypes",
		"eventUpdatedDateTimeMin", "eventUpdatedDateTimeMax"} {
		fmt.Fprintf(h, "%s=%q;", k, raw[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func registerV3Events(s *fuego.Server, deps Deps) {
	h := v3Events{deps}
	fuego.Get(s, "/v3/events", h.list,
		option.OperationID("getTrackAndTraceEvents"),
		option.Summary("The account's events as a DCSA Track & Trace 3.0 producer"),
		option.Description("GET /events of DCSA Track & Trace 3.0.0 (the producer role): the latest version of every event of the account's trackings, "+
			"each mapped from EVENT_DOMAIN 2.0.2 to 3.0 (SHIPMENT, IOT and REEFER events, which 2.0.2 has no form for, with their 3.0 codes and details), "+
			"a withdrawn one as 3.0's retraction (isRetracted, same eventID). "+
			"Filters combine: carrierBookingReference or transportDocumentReference, each with or without equipmentReference, "+
			"or equipmentReference alone (an event matches a reference it names, or that a tracking it belongs to follows); "+
			"eventTypes (EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER); eventUpdatedDateTimeMin and Max (inclusive). "+
			"Ordered by eventUpdatedDateTime. limit is lowered to at most 1000 (default 100); while more remain the answer has Next-Page-Cursor, "+
			"sent back as cursor with the same filters. Every answer has API-Version 3.0.0; errors are 3.0's GetEventsError with contrack's message."),
		option.Query("carrierBookingReference", "events of this booking"),
		option.Query("transportDocumentReference", "events of this transport document (bill of lading)"),
		option.Query("equipmentReference", "events of this container"),
		option.Query("eventTypes", "comma-separated event types: EQUIPMENT, TRANSPORT, SHIPMENT, IOT, REEFER"),
		option.Query("eventUpdatedDateTimeMin", "events updated at or after this RFC 3339 date-time"),
		option.Query("eventUpdatedDateTimeMax", "events updated at or before this RFC 3339 date-time"),
		option.QueryInt("limit", "events per page, lowered to 1000; default 100"),
		option.Query("cursor", "the Next-Page-Cursor of the previous answer, with the same filters"),
		option.Header("API-Version", "3.x.x, or absent"),
		option.AddResponse(400, "Invalid filter, limit, cursor or API-Version (3.0's GetEventsError, with message)", fuego.Response{Type: V3Error{}}),
		option.Tags("DCSA Track & Trace 3.0"),
	)
}

// V3Error is a GET /v3/events error body: 3.0's GetEventsError and
// contrack's message.
type V3Error struct {
	Message          string                 `json:"message"`
	FeedbackElements []tnt3.FeedbackElement `json:"feedbackElements"`
}

type v3Events struct{ deps Deps }

// v3Bad is a 400 in 3.0's error shape; path is the query parameter at fault.
func v3Bad(msg, param string) error {
	fb := tnt3.FeedbackElement{Severity: tnt3.SeverityError, Message: msg}
	if param != "" {
		fb.PropertyPath = "$.query." + param
	}
	return &httpapi.Error{Status: http.StatusBadRequest, Message: msg, Feedback: []tnt3.FeedbackElement{fb},
		Header: http.Header{tnt3.HeaderAPIVersion: {tnt3.Version}}}
}

func (h v3Events) list(c fuego.ContextNoBody) (V3Events, error) {
	c.Response().Header().Set(tnt3.HeaderAPIVersion, tnt3.Version)
	k, _ := auth.FromContext(c.Context())
	if v := c.Request().Header.Get(tnt3.HeaderAPIVersion); v != "" && !tnt3.IsVersion3(v) {
		return V3Events{}, v3Bad("Unsupported API-Version '"+clipHeader(v)+"': this endpoint serves 3.x.x", "")
	}
	raw := c.Request().URL.Query()
	q, err := h.parse(raw, k.Account.ID)
	if err != nil {
		return V3Events{}, err
	}
	ctx := c.Context()
	trackings, err := h.trackings(ctx, k.Account.ID, q)
	if err != nil {
		return V3Events{}, err
	}
	rows, err := h.read(ctx, k.Account.ID, q, trackings)
	if err != nil {
		return V3Events{}, err
	}
	out := V3Events{Events: make([]tnt3.Event, 0, min(len(rows), q.limit))}
	for i, r := range rows {
		if i == q.limit {
			last := rows[i-1]
			c.Response().Header().Set(tnt3.HeaderNextPageCursor, subscriptionQueries{h.deps}.sealJSON(v3Cursor{
				Account: k.Account.ID, Scope: v3Scope, Filters: q.digest(raw), Version: last.version, EventID: last.id}))
			break
		}
		at := time.Unix(0, int64(r.version)).UTC()
		if r.hash == schemas.RetractedHash {
			out.Events = append(out.Events, tnt3.Retraction(r.id, r.scac, at))
			continue
		}
		e, err := tnt3.FromDCSAJSON([]byte(r.json), r.scac, at)
		if err != nil {
			return V3Events{}, fmt.Errorf("v3 events: %w", err)
		}
		out.Events = append(out.Events, e)
	}
	return out, nil
}

// parse reads and checks the query.
func (h v3Events) parse(raw url.Values, account string) (v3Query, error) {
	q := v3Query{limit: DefaultV3Limit}
	q.booking = strings.TrimSpace(raw.Get("carrierBookingReference"))
	q.document = strings.TrimSpace(raw.Get("transportDocumentReference"))
	q.equipment = strings.ToUpper(strings.Join(strings.Fields(raw.Get("equipmentReference")), ""))
	if q.booking != "" && q.document != "" {
		return q, v3Bad("carrierBookingReference and transportDocumentReference cannot be combined", "transportDocumentReference")
	}
	if v := raw.Get("eventTypes"); v != "" {
		q.types = map[string]bool{}
		for _, t := range strings.Split(v, ",") {
			switch t = strings.TrimSpace(t); t {
			case tnt3.EventTypeEquipment, tnt3.EventTypeTransport, tnt3.EventTypeShipment, tnt3.EventTypeIoT, tnt3.EventTypeReefer:
				q.types[t] = true
			default:
				return q, v3Bad("eventTypes: '"+clipHeader(t)+"' is not EQUIPMENT, TRANSPORT, SHIPMENT, IOT or REEFER", "eventTypes")
			}
		}
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"eventUpdatedDateTimeMin", &q.min}, {"eventUpdatedDateTimeMax", &q.max}} {
		if v := raw.Get(p.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return q, v3Bad(p.name+" must be an RFC 3339 date-time", p.name)
			}
			*p.dst = &t
		}
	}
	if raw.Has("limit") {
		n, err := strconv.Atoi(strings.TrimSpace(raw.Get("limit")))
		if err != nil || n < 1 {
			return q, v3Bad("limit must be a positive integer", "limit")
		}
		q.limit = min(n, MaxV3Limit)
	}
	if tok := raw.Get("cursor"); tok != "" {
		var cur v3Cursor
		if !(subscriptionQueries{h.deps}).openJSON(tok, &cur) || cur.Account != account || cur.Scope != v3Scope {
			return q, v3Bad(msgBadCursor, "cursor")
		}
		if cur.Filters != q.digest(raw) {
			return q, v3Bad("Invalid cursor: send it with the query parameters of the request that returned it", "cursor")
		}
		q.cursor = &cur
	}
	return q, nil
}

// trackingSets are the account's trackings following each reference of
// the query (their events belong to it even where an event does not name
// it, e.g. a vessel's arrival on a booking).
type trackingSets struct{ booking, document, equipment []string }

func (h v3Events) trackings(ctx context.Context, account string, q v3Query) (trackingSets, error) {
	var out trackingSets
	for _, r := range []struct {
		kind, value string
		dst         *[]string
	}{{"booking", q.booking, &out.booking}, {"bill", q.document, &out.document}, {"container", q.equipment, &out.equipment}} {
		if r.value == "" {
			continue
		}
		rows, err := h.deps.Pool.Query(ctx, `SELECT id::text FROM trackings WHERE account_id = $1 AND identifier_kind = $2 AND identifier = $3`,
			account, r.kind, r.value)
		if err != nil {
			return out, fmt.Errorf("v3 events: trackings: %w", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return out, fmt.Errorf("v3 events: trackings: %w", err)
		}
		*r.dst = append([]string{}, ids...)
	}
	return out, nil
}

// v3Row is the latest version of one event.
type v3Row struct {
	id, hash, json, scac string
	version              uint64
}

// read returns up to limit+1 events of the account matching q, ordered by
// (version, event id), after the cursor. An event matches a reference
// filter when one of its versions names the reference or belongs to a
// tracking following it; the type filter reads the event's type (a
// retraction's, that of the version it withdrew). Each event is its
// newest version over every tracking of the account.
func (h v3Events) read(ctx context.Context, account string, q v3Query, ts trackingSets) ([]v3Row, error) {
	var where []string
	var args []any
	where, args = append(where, "account_id = ?"), append(args, account)
	match := func(cond string, value any, trackings []string) {
		args = append(args, value)
		if len(trackings) > 0 {
			cond += " OR has(?, tracking_id)"
			args = append(args, trackings)
		}
		where = append(where, "("+cond+")")
	}
	if q.booking != "" {
		match("event_json LIKE ?", documentPattern(dcsa.DocBooking, q.booking), ts.booking)
	}
	if q.document != "" {
		match("event_json LIKE ?", documentPattern(dcsa.DocTransportDoc, q.document), ts.document)
	}
	if q.equipment != "" {
		match("equipment_reference = ?", q.equipment, ts.equipment)
	}
	// Events updated since the lower bound are those with a row since it.
	var low uint64
	if q.min != nil {
		low = uint64(max(q.min.UnixNano(), 0))
	}
	if q.cursor != nil {
		low = max(low, q.cursor.Version)
	}
	sql := `SELECT event_id, argMax(content_hash, version) AS hash, argMax(event_json, version) AS js, argMax(scac, version) AS sc,
		       max(version) AS v, argMaxIf(event_type, version, content_hash != '` + schemas.RetractedHash + `') AS typ
		FROM events
		WHERE account_id = ? AND event_id IN (SELECT event_id FROM events WHERE ` + strings.Join(where, " AND ") + `)
		  AND event_id IN (SELECT event_id FROM events WHERE account_id = ? AND version >= ?)
		GROUP BY event_id
		HAVING 1`
	args = append([]any{account}, args...)
	args = append(args, account, low)
	if q.min != nil {
		sql += ` AND v >= ?`
		args = append(args, uint64(max(q.min.UnixNano(), 0)))
	}
	if q.max != nil {
		// Inclusive at the millisecond eventUpdatedDateTime shows.
		sql += ` AND v <= ?`
		args = append(args, uint64(max(q.max.Truncate(time.Millisecond).UnixNano()+int64(time.Millisecond)-1, 0)))
	}
	if q.cursor != nil {
		sql += ` AND (v > ? OR (v = ? AND event_id > ?))`
		args = append(args, q.cursor.Version, q.cursor.Version, q.cursor.EventID)
	}
	if q.types != nil {
		var types []string
		for t := range q.types {
			types = append(types, t)
		}
		sql += ` AND has(?, typ)`
		args = append(args, types)
	}
	sql += ` ORDER BY v, event_id LIMIT ` + strconv.Itoa(q.limit+1)
	rows, err := h.deps.CH.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("v3 events: %w", err)
	}
	defer rows.Close()
	var out []v3Row
	for rows.Next() {
		var r v3Row
		var typ string
		if err := rows.Scan(&r.id, &r.hash, &r.json, &r.scac, &r.version, &typ); err != nil {
			return nil, fmt.Errorf("v3 events: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("v3 events: %w", err)
	}
	return out, nil
}

// documentPattern is a LIKE pattern matching the events that name a
// document: the events table holds each event as the normaliser wrote it,
// json.Marshal of dcsa.Event, so a document reference is exactly this
// object, whatever else the event holds.
func documentPattern(typ, value string) string {
	ref, _ := json.Marshal(dcsa.DocumentReference{DocumentReferenceType: typ, DocumentReferenceValue: value})
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(string(ref)) + "%"
}

// sealJSON signs v as a token, like nextTokens.
func (h subscriptionQueries) sealJSON(v any) string {
	payload, _ := json.Marshal(v)
	return h.sealPayload(payload)
}
