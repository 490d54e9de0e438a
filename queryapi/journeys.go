package queryapi

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/schemas/dcsa"
)

// JourneyResult is one equipment's journey in GET /subscription/equipment.
type JourneyResult struct {
	EquipmentNumber string            `json:"equipmentNumber"`
	ScacCode        string            `json:"scacCode"`
	TrackingStatus  string            `json:"trackingStatus"`
	LastLocation    string            `json:"lastLocation"`
	POL             string            `json:"POL"`
	POD             string            `json:"POD"`
	SourceEvents    []json.RawMessage `json:"sourceEvents"`
	EnhancedEvents  []EnhancedEvent   `json:"enhancedEvents"`
	VesselEvents    []json.RawMessage `json:"vesselEvents"`
}

// EnhancedEvent is a milestone contrack derives from the carrier's events.
type EnhancedEvent struct {
	// EnhancedEventType is TRANSSHIPMENT (discharged at a port between POL
	// and POD), ETA_POD (the latest estimate of arrival at POD) or ATA_POD
	// (the actual arrival there).
	EnhancedEventType string `json:"enhancedEventType"`
	UNLocationCode    string `json:"UNLocationCode"`
	EventDateTime     string `json:"eventDateTime"`
}

// JourneysResponse is GET /subscription/equipment's body.
type JourneysResponse struct {
	Results       []JourneyResult `json:"results"`
	Count         int             `json:"count"`
	DateOfRequest httpapi.Time    `json:"dateOfRequest"`
}

func registerJourneys(s *fuego.Server, deps Deps) {
	fuego.Get(s, "/subscription/equipment", func(c fuego.ContextNoBody) (JourneysResponse, error) {
		now := deps.Now().UTC()
		k, _ := auth.FromContext(c.Context())
		q := c.Request().URL.Query()
		equipment := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(q.Get("equipmentNumber")), " ", ""))
		booking := strings.TrimSpace(q.Get("bookingNumber"))
		bill := strings.TrimSpace(q.Get("billNumber"))
		if equipment == "" && booking == "" && bill == "" {
			return JourneysResponse{}, httpapi.BadRequest("Must provide at least one of: equipmentNumber, bookingNumber, billNumber").Dated(now)
		}
		if booking != "" && bill != "" {
			return JourneysResponse{}, httpapi.BadRequest("Cannot provide both bookingNumber and billNumber please provide one").Dated(now)
		}
		results, err := journeys(c.Context(), deps, k.Account.ID, equipment, booking, bill)
		if err != nil {
			return JourneysResponse{}, err
		}
		return JourneysResponse{Results: results, Count: len(results), DateOfRequest: httpapi.Time(now)}, nil
	},
		option.Query("equipmentNumber", "container number; narrows a booking or bill lookup to that container"),
		option.Query("bookingNumber", "booking reference (not with billNumber)"),
		option.Query("billNumber", "bill of lading number (not with bookingNumber)"),
		option.Summary("Tracking data of the account's subscriptions"),
		option.Description("One result per container of the matching subscriptions: the carrier's DCSA 2.0.2 equipment events (sourceEvents), its transport events (vesselEvents), POL, POD, last actual location and derived milestones (enhancedEvents: TRANSSHIPMENT, ETA_POD, ATA_POD)."),
		option.AddResponse(400, "No identifier, or both booking and bill", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Subscriptions"),
	)
}

type trackingRef struct {
	id, scac, kind, value, status string
}

// journeys finds the account's trackings matching the query and builds a
// journey per container from their events.
func journeys(ctx context.Context, deps Deps, accountID, equipment, booking, bill string) ([]JourneyResult, error) {
	kind, value := "container", equipment
	switch {
	case booking != "":
		kind, value = "booking", booking
	case bill != "":
		kind, value = "bill", bill
	}
	rows, err := deps.Pool.Query(ctx, `
		SELECT t.id::text, t.scac, t.identifier_kind, t.identifier,
		       CASE WHEN bool_or(s.status = 'OPEN') THEN 'OPEN' ELSE 'CLOSED' END
		FROM trackings t JOIN subscriptions s ON s.tracking_id = t.id
		WHERE t.account_id = $1 AND t.identifier_kind = $2 AND t.identifier = $3
		GROUP BY t.id, t.scac, t.identifier_kind, t.identifier
		ORDER BY min(s.seq)`, accountID, kind, value)
	if err != nil {
		return nil, fmt.Errorf("find trackings: %w", err)
	}
	var refs []trackingRef
	for rows.Next() {
		var r trackingRef
		if err := rows.Scan(&r.id, &r.scac, &r.kind, &r.value, &r.status); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find trackings: %w", err)
		}
		refs = append(refs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find trackings: %w", err)
	}
	results := []JourneyResult{}
	for _, ref := range refs {
		events, err := trackingEvents(ctx, deps, accountID, ref.id)
		if err != nil {
			return nil, err
		}
		results = append(results, buildJourneys(ref, events, equipment)...)
	}
	return results, nil
}

// trackingEvents returns the latest version of every event of a tracking.
func trackingEvents(ctx context.Context, deps Deps, accountID, trackingID string) ([]dcsa.Event, error) {
	if deps.CH == nil {
		return nil, nil
	}
	rows, err := deps.CH.Query(ctx, `
		SELECT argMax(event_json, version) FROM events
		WHERE account_id = ? AND tracking_id = ?
		GROUP BY event_id`, accountID, trackingID)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var out []dcsa.Event
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		var ev dcsa.Event
		if err := json.Unmarshal([]byte(raw), &ev); err != nil {
			continue
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

type timed struct {
	ev dcsa.Event
	at time.Time
}

func byTime(evs []dcsa.Event) []timed {
	out := make([]timed, 0, len(evs))
	for _, ev := range evs {
		at, _ := time.Parse(time.RFC3339Nano, ev.EventDateTime)
		out = append(out, timed{ev, at})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

func raw(ev dcsa.Event) json.RawMessage {
	b, _ := json.Marshal(ev)
	return b
}

// buildJourneys makes one result per container of a tracking (only
// equipment, when given). A container tracking without events yet still
// has its result, with empty event lists.
func buildJourneys(ref trackingRef, events []dcsa.Event, equipment string) []JourneyResult {
	var transport []dcsa.Event
	perContainer := map[string][]dcsa.Event{}
	var order []string
	if ref.kind == "container" {
		order = append(order, ref.value)
		perContainer[ref.value] = nil
	}
	for _, ev := range events {
		if ev.EventType == dcsa.EventTypeTransport {
			transport = append(transport, ev)
			continue
		}
		c := ev.EquipmentReference
		if c == "" {
			continue
		}
		if _, seen := perContainer[c]; !seen {
			order = append(order, c)
		}
		perContainer[c] = append(perContainer[c], ev)
	}
	// The tracked container first, the containers of a booking or bill by number.
	if ref.kind == "container" {
		sort.Strings(order[1:])
	} else {
		sort.Strings(order)
	}
	vessel := byTime(transport)
	var out []JourneyResult
	for _, c := range order {
		if equipment != "" && c != equipment {
			continue
		}
		r := JourneyResult{EquipmentNumber: c, ScacCode: ref.scac, TrackingStatus: ref.status,
			SourceEvents: []json.RawMessage{}, EnhancedEvents: []EnhancedEvent{}, VesselEvents: []json.RawMessage{}}
		eq := byTime(perContainer[c])
		var lastActual time.Time
		for _, t := range eq {
			r.SourceEvents = append(r.SourceEvents, raw(t.ev))
			switch t.ev.EquipmentEventTypeCode {
			case "LOAD":
				if r.POL == "" {
					r.POL = t.ev.Place()
				}
			case "DISC":
				r.POD = t.ev.Place() // the last discharge is the port of discharge
			}
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		for _, t := range vessel {
			r.VesselEvents = append(r.VesselEvents, raw(t.ev))
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		r.EnhancedEvents = enhance(r, eq, vessel)
		out = append(out, r)
	}
	return out
}

// enhance derives milestones: transshipments, and the estimated or actual
// arrival at the port of discharge.
func enhance(r JourneyResult, eq, vessel []timed) []EnhancedEvent {
	out := []EnhancedEvent{}
	for _, t := range eq {
		p := t.ev.Place()
		if t.ev.EquipmentEventTypeCode == "DISC" && p != "" && p != r.POL && p != r.POD {
			out = append(out, EnhancedEvent{"TRANSSHIPMENT", p, t.ev.EventDateTime})
		}
	}
	var eta, ata *dcsa.Event
	for i := range vessel {
		ev := vessel[i].ev
		if ev.TransportEventTypeCode != "ARRI" || r.POD == "" || ev.Place() != r.POD {
			continue
		}
		if ev.EventClassifierCode == dcsa.ClassifierActual {
			ata = &ev
		} else {
			eta = &ev
		}
	}
	if ata != nil {
		out = append(out, EnhancedEvent{"ATA_POD", r.POD, ata.EventDateTime})
	} else if eta != nil {
		out = append(out, EnhancedEvent{"ETA_POD", r.POD, eta.EventDateTime})
	}
	return out
}
