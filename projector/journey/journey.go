// Package journey derives the journey read model of one tracking: one result
// per container (POL, POD, last location, its events, the vessel's events and
// milestones) from the tracking's events in the events topic's order and its
// subscription changes. It is pure: the projector keeps a State per tracking,
// applies records to it and writes what Derive returns.
package journey

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/journeys"
	"github.com/contrack/contrack/schemas/readiness"
)

// journeys.Milestone types of enhancedEvents (journeys.Milestone) (docs/api.md has examples).
const (
	// TypeATDPOL is the vessel's actual departure from the port of loading.
	TypeATDPOL = "ATD_POL"
	// TypeTransshipment is a discharge at a port between POL and POD
	// (reloadDateTime: the reload there, when known).
	TypeTransshipment = "TRANSSHIPMENT"
	// TypeETARevision is one revision of the estimated arrival at POD:
	// eventDateTime the new estimate, previousEventDateTime the one before
	// (absent on the first estimate), revisedDateTime when the carrier made it.
	TypeETARevision = "ETA_REVISION"
	// TypeETAPOD is the current predicted arrival at POD (until it arrives).
	TypeETAPOD = "ETA_POD"
	// TypeATAPOD is the vessel's actual arrival at POD.
	TypeATAPOD = "ATA_POD"
	// TypeDischargePOD is the container's actual discharge at POD.
	TypeDischargePOD = "DISCHARGE_POD"
	// TypeGateOutDestination is the full container's actual gate-out at POD
	// or, after a rail leg, at the inland destination.
	TypeGateOutDestination = "GATE_OUT_FULL_DESTINATION"
	// TypeEmptyReturn is the empty container's actual gate-in after delivery.
	TypeEmptyReturn = "EMPTY_RETURN"
)

// maxETAHistory bounds the estimate versions a state keeps (a journey
// revised every 6 hours for two months stays under it).
const maxETAHistory = 256

// State is what the projector keeps per tracking to update its journeys
// incrementally: the latest version of every event, every version of the
// vessel's estimated arrivals (for revisions) and the subscription facts.
type State struct {
	AccountID  string `json:"accountId"`
	Env        string `json:"env"`
	TrackingID string `json:"trackingId"`
	SCAC       string `json:"scac"`
	// Kind (container, booking, bill) and Identifier are the tracking's
	// lookup key; empty until its subscription change arrives.
	Kind       string `json:"kind,omitempty"`
	Identifier string `json:"identifier,omitempty"`
	Open       bool   `json:"open"`
	// Since orders trackings sharing a lookup (first change seen).
	Since time.Time `json:"since"`
	// Events: the latest version of each event, in order of first appearance.
	// The projector stores them apart from the rest (MarshalHeader), so
	// they are absent from a header's JSON.
	Events []Stored `json:"events,omitempty"`
	// ETAs: every version of an estimated vessel arrival, in topic order.
	ETAs []ETAVersion `json:"etas,omitempty"`
	// Version counts the changes applied: the read model rows' version.
	Version uint64 `json:"version"`
	// AlertsBaseline: the alerts the journey showed when it first had
	// events are recorded, later ones raised (NewAlerts). Alerted are the
	// ids raised or recorded, newest last; Passage the departure last
	// planned from the port of loading (for ROLLED).
	AlertsBaseline bool     `json:"alertsBaseline,omitempty"`
	Alerted        []string `json:"alerted,omitempty"`
	Passage        *Passage `json:"passage,omitempty"`

	// index is the position of each event id in Events (built on first use).
	index map[string]int
	// unsaved are the positions of the events changed since MarkSaved.
	unsaved []int
}

// Stored is the latest version of one event.
type Stored struct {
	ID    string          `json:"id"`
	Hash  string          `json:"hash"`
	Event json.RawMessage `json:"event"`

	// parsed is Event decoded, once (by ApplyEvent, or by Derive for an
	// event loaded from storage), if decoded; unsaved: changed since
	// MarkSaved. Held by value: the states of every tracking a member owns
	// stay in memory, and each object in them is work for every GC cycle.
	parsed  parsed
	decoded bool
	unsaved bool
}

// parsed is what derivation reads of an event (not the whole dcsa.Event:
// the states of many trackings are kept in memory).
type parsed struct {
	ev fields
	at time.Time // ev.EventDateTime
	ok bool      // Event decoded as a DCSA event
}

// fields are the dcsa.Event fields derivation reads, under their names.
type fields struct {
	EventType, EventClassifierCode, EventDateTime, EventCreatedDateTime string
	EquipmentEventTypeCode, EquipmentReference, EmptyIndicatorCode      string
	TransportEventTypeCode                                              string
	// mode is the transport call's modeOfTransport: a LOAD or DISC of a
	// RAIL or TRUCK leg is inland, not at a port of the sea passage.
	mode  string
	place string
}

// inland says the event is a rail or road leg's: pre- or on-carriage,
// never the port of loading, a transshipment or the port of discharge.
func (f *fields) inland() bool { return f.mode == "RAIL" || f.mode == "TRUCK" }

// Place is dcsa.Event.Place.
func (f *fields) Place() string { return f.place }

// decode parses st.Event unless done already. It also makes Event compact
// and HTML-escaped, as json.Marshal encodes a json.RawMessage (a no-op for
// what the normaliser emits), so AppendArray's concatenation gives exactly
// json.Marshal's bytes.
func (st *Stored) decode() *parsed {
	p := &st.parsed
	if st.decoded {
		return p
	}
	st.decoded = true
	*p = parsed{}
	if st.Hash == schemas.RetractedHash {
		return p // withdrawn: in no journey
	}
	var ev dcsa.Summary
	if dcsa.DecodeSummary(st.Event, &ev) == nil {
		p.ok = true
		// The four strings kept share one allocation.
		place := ev.Place()
		all := ev.EventDateTime + ev.EventCreatedDateTime + ev.EquipmentReference + place
		cut := func(n int) string {
			s := all[:n]
			all = all[n:]
			return s
		}
		p.ev = fields{EventType: code(ev.EventType), EventClassifierCode: code(ev.EventClassifierCode),
			EventDateTime: cut(len(ev.EventDateTime)), EventCreatedDateTime: cut(len(ev.EventCreatedDateTime)),
			EquipmentEventTypeCode: code(ev.EquipmentEventTypeCode), EquipmentReference: cut(len(ev.EquipmentReference)),
			EmptyIndicatorCode: code(ev.EmptyIndicatorCode), TransportEventTypeCode: code(ev.TransportEventTypeCode), mode: code(ev.Mode()), place: cut(len(place))}
		p.at, _ = time.Parse(time.RFC3339Nano, ev.EventDateTime)
		// Kept as json.Marshal writes it (compact, escaped); the
		// normaliser's events are that already, which a scan tells.
		if !marshalForm(st.Event) {
			if c, err := json.Marshal(st.Event); err == nil && !bytes.Equal(c, st.Event) {
				st.Event = c
			}
		}
	}
	return p
}

// marshalForm says json.Marshal would return raw, valid JSON, unchanged
// as a RawMessage: no space outside its strings, and nothing inside them
// that it escapes (<, >, &, U+2028, U+2029). One pass over the bytes,
// where json.Marshal validates and copies them.
func marshalForm(raw json.RawMessage) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !inString {
			switch c {
			case '"':
				inString = true
			case ' ', '\t', '\n', '\r':
				return false
			}
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			i++ // the escaped byte (a \u's hex digits are plain)
		case '<', '>', '&':
			return false
		case 0xE2: // U+2028 and U+2029 are E2 80 A8 and E2 80 A9
			if i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9) {
				return false
			}
		}
	}
	return true
}

// codes are the common values of the code fields, kept once.
var codes = func() map[string]string {
	m := map[string]string{}
	for _, c := range []string{dcsa.EventTypeEquipment, dcsa.EventTypeTransport, dcsa.ClassifierActual, dcsa.ClassifierEstimated,
		dcsa.ClassifierPlanned, "LOAD", "DISC", "GTIN", "GTOT", "STUF", "STRP", "PICK", "DROP", "INSP", "RSEA", "RMVD",
		"ARRI", "DEPA", "LADEN", "EMPTY", "VESSEL", "RAIL", "TRUCK", "BARGE"} {
		m[c] = c
	}
	return m
}()

// code returns s, the one kept copy when it is a common code: the events
// kept in memory do not each hold their own.
func code(s string) string {
	if c, ok := codes[s]; ok {
		return c
	}
	return s
}

// AppendArray appends the JSON array of msgs to dst: the bytes json.Marshal
// gives for Derive's SourceEvents and VesselEvents, without re-validating
// and compacting every event on every change (decode did it once).
func AppendArray(dst []byte, msgs []json.RawMessage) []byte {
	n := 2 + len(msgs)
	for _, m := range msgs {
		n += max(len(m), 4)
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if len(m) == 0 {
			m = json.RawMessage("null") // as json.Marshal writes a nil message
		}
		dst = append(dst, m...)
	}
	return append(dst, ']')
}

// ETAVersion is one version of an estimated vessel arrival.
type ETAVersion struct {
	Place   string `json:"place"`
	At      string `json:"at"`
	Created string `json:"created"`
	// ID is the event's id, so a retraction takes its versions back
	// (absent in states written before retractions).
	ID string `json:"id,omitempty"`
}

// ApplyEvent applies an events-topic record; false when it changes nothing
// (a repeat of the current version). The last version in the topic's order
// wins, whatever its content or creation time: A, then B, then A shows A.
// A retraction record withdraws the event: it leaves every journey and
// its estimates leave the ETA history, so the milestones are derived as if
// it never came (a later version brings it back).
func (s *State) ApplyEvent(rec schemas.EventRecord) bool {
	if s.TrackingID == "" {
		s.TrackingID, s.AccountID, s.Env = rec.TrackingID, rec.AccountID, rec.Env
	}
	if s.SCAC == "" {
		s.SCAC = rec.SCAC
	}
	if s.index == nil || len(s.index) != len(s.Events) {
		s.index = make(map[string]int, len(s.Events))
		for j, e := range s.Events {
			s.index[e.ID] = j
		}
	}
	idx, ok := s.index[rec.EventID]
	if ok && s.Events[idx].Hash == rec.ContentHash {
		return false
	}
	if !ok && rec.Retraction() {
		return false // nothing to withdraw
	}
	if !ok {
		idx = len(s.Events)
	}
	if !ok || !s.Events[idx].unsaved {
		s.unsaved = append(s.unsaved, idx)
	}
	// The id and the hash share one allocation (the index's key too).
	idHash := rec.EventID + rec.ContentHash
	stored := Stored{ID: idHash[:len(rec.EventID)], Hash: idHash[len(rec.EventID):], Event: rec.Event, unsaved: true}
	if ok {
		s.Events[idx] = stored
	} else {
		s.Events = append(s.Events, stored)
		s.index[stored.ID] = idx
	}
	if rec.Retraction() {
		s.ETAs = slices.DeleteFunc(s.ETAs, func(v ETAVersion) bool { return v.ID == stored.ID })
		return true
	}
	if p := s.Events[idx].decode(); p.ok && p.ev.EventType == dcsa.EventTypeTransport &&
		p.ev.TransportEventTypeCode == "ARRI" && p.ev.EventClassifierCode != dcsa.ClassifierActual {
		ev := &p.ev
		s.ETAs = append(s.ETAs, ETAVersion{Place: ev.Place(), At: ev.EventDateTime, Created: ev.EventCreatedDateTime, ID: s.Events[idx].ID})
		if len(s.ETAs) > maxETAHistory {
			s.ETAs = append(s.ETAs[:0:0], s.ETAs[len(s.ETAs)-maxETAHistory:]...)
		}
	}
	return true
}

// UnsavedEvents returns the positions in Events (ascending) of the events
// changed since the last MarkSaved: what the projector writes.
func (s *State) UnsavedEvents() []int {
	out := slices.Clone(s.unsaved)
	slices.Sort(out)
	return out
}

// MarkSaved records that every event is stored.
func (s *State) MarkSaved() {
	for _, i := range s.unsaved {
		s.Events[i].unsaved = false
	}
	s.unsaved = s.unsaved[:0]
}

// MarkAllUnsaved marks every event changed: a state loaded from where its
// events are not stored one by one (a header written with its events).
func (s *State) MarkAllUnsaved() {
	s.unsaved = s.unsaved[:0]
	for i := range s.Events {
		s.Events[i].unsaved = true
		s.unsaved = append(s.unsaved, i)
	}
}

// MarshalHeader encodes the state without its events (the projector
// stores each event on its own).
func (s *State) MarshalHeader() ([]byte, error) {
	h := State{AccountID: s.AccountID, Env: s.Env, TrackingID: s.TrackingID, SCAC: s.SCAC, Kind: s.Kind,
		Identifier: s.Identifier, Open: s.Open, Since: s.Since, ETAs: s.ETAs, Version: s.Version,
		AlertsBaseline: s.AlertsBaseline, Alerted: s.Alerted, Passage: s.Passage}
	return json.Marshal(&h)
}

// ApplySubscription applies a subscription change; false when nothing the
// journeys show changed.
func (s *State) ApplySubscription(c schemas.SubscriptionChanged) bool {
	changed := s.Kind != c.IdentifierKind || s.Identifier != c.Identifier || s.Open != c.TrackingOpen || s.SCAC != c.SCAC
	if s.TrackingID == "" {
		s.TrackingID, s.AccountID, s.Env = c.TrackingID, c.AccountID, c.Env
	}
	if s.Since.IsZero() || (!c.OccurredAt.IsZero() && c.OccurredAt.Before(s.Since)) {
		s.Since = c.OccurredAt.UTC()
	}
	s.Kind, s.Identifier, s.Open, s.SCAC = c.IdentifierKind, c.Identifier, c.TrackingOpen, c.SCAC
	return changed
}

// Status is the journeys' trackingStatus.
func (s *State) Status() string {
	if s.Open {
		return "OPEN"
	}
	return "CLOSED"
}

type timed struct {
	ev  *fields
	raw json.RawMessage
	at  time.Time
	id  string // the event's id
}

func byTime(ts []timed) {
	slices.SortStableFunc(ts, func(a, b timed) int { return a.at.Compare(b.at) })
}

// Derive returns one result per container of the tracking: the tracked
// container first (even without events), then the others by number. A
// tracking whose lookup key is not known yet has none.
//
// It runs on every change of a tracking, over all its events, so it
// allocates by the tracking's size once: one slice of its equipment events
// sorted by container then time (stable: events of the same time keep
// their order of first appearance), sub-sliced per container.
func Derive(s *State) []journeys.Result {
	if s.Kind == "" {
		return nil
	}
	equipment := make([]timed, 0, len(s.Events))
	var transport, terminal []timed
	for i := range s.Events {
		st := &s.Events[i]
		p := st.decode()
		if !p.ok {
			continue
		}
		ev := &p.ev
		t := timed{ev, st.Event, p.at, st.ID}
		if ev.EventType == dcsa.EventTypeTransport {
			transport = append(transport, t)
			continue
		}
		if ev.EquipmentReference == "" {
			continue
		}
		if _, ok := dcsa.TerminalCodes[ev.EquipmentEventTypeCode]; ok {
			terminal = append(terminal, t) // readiness only: no 2.0.2 event
			continue
		}
		equipment = append(equipment, t)
	}
	byTime(terminal)
	// Mostly in order already (events arrive in time order): then a stable
	// sort would leave it as it is.
	if byContainerTime := func(a, b timed) int {
		if c := strings.Compare(a.ev.EquipmentReference, b.ev.EquipmentReference); c != 0 {
			return c
		}
		return a.at.Compare(b.at)
	}; !slices.IsSortedFunc(equipment, byContainerTime) {
		slices.SortStableFunc(equipment, byContainerTime)
	}
	byTime(transport)
	vessel := make([]json.RawMessage, len(transport))
	for i, t := range transport {
		vessel[i] = t.raw
	}
	// Each container's events, equipment[lo:hi]: the tracked container
	// first, with or without events, then the others in number order.
	type span struct {
		container string
		lo, hi    int
	}
	spans := make([]span, 0, 1)
	if s.Kind == "container" {
		spans = append(spans, span{container: s.Identifier})
	}
	for lo := 0; lo < len(equipment); {
		c := equipment[lo].ev.EquipmentReference
		hi := lo + 1
		for hi < len(equipment) && equipment[hi].ev.EquipmentReference == c {
			hi++
		}
		if s.Kind == "container" && c == s.Identifier {
			spans[0].lo, spans[0].hi = lo, hi
		} else {
			spans = append(spans, span{c, lo, hi})
		}
		lo = hi
	}
	out := make([]journeys.Result, len(spans))
	for i, sp := range spans {
		r := &out[i]
		eq := equipment[sp.lo:sp.hi]
		r.EquipmentNumber = sp.container
		r.ScacCode, r.TrackingStatus = s.SCAC, s.Status()
		r.SourceEvents, r.VesselEvents = make([]json.RawMessage, len(eq)), vessel
		var lastActual time.Time
		var inlandPOL, inlandPOD string // from rail or road legs only: used when the container has no sea leg
		for j, t := range eq {
			r.SourceEvents[j] = t.raw
			switch t.ev.EquipmentEventTypeCode {
			case "LOAD":
				if t.ev.inland() {
					if inlandPOL == "" {
						inlandPOL = t.ev.Place()
					}
				} else if r.POL == "" {
					r.POL = t.ev.Place()
				}
			case "DISC":
				// The last discharge from a vessel is the port of
				// discharge; a rail ramp's after it is on-carriage.
				if t.ev.inland() {
					inlandPOD = t.ev.Place()
				} else {
					r.POD = t.ev.Place()
				}
			}
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		for _, t := range transport {
			if t.ev.EventClassifierCode == dcsa.ClassifierActual && !t.at.Before(lastActual) {
				lastActual, r.LastLocation = t.at, t.ev.Place()
			}
		}
		if r.POL == "" && r.POD == "" {
			r.POL, r.POD = inlandPOL, inlandPOD
		}
		r.EnhancedEvents = milestones(*r, eq, transport, s.ETAs)
		r.Facts = facts(*r, eq, terminal)
	}
	return out
}

// facts are a container's readiness facts at its port of discharge: the
// last actual discharge there, the full gate-out and empty return after
// it (as the milestones have them), and its terminal events — holds
// (customs: CUSS or CUSI placed, CUSR releases every open one) and
// availability for pick-up (the latest AVPU) — where they name the port
// of discharge or no place.
func facts(r journeys.Result, eq, terminal []timed) readiness.Facts {
	f := readiness.Facts{UNLocationCode: r.POD}
	if r.POD == "" {
		return f
	}
	disc := -1
	for i := range eq {
		if t := eq[i]; t.ev.EquipmentEventTypeCode == "DISC" && t.ev.EventClassifierCode == dcsa.ClassifierActual && t.ev.Place() == r.POD && !t.ev.inland() {
			disc = i
			f.DischargedDateTime, f.DischargeEventID = t.ev.EventDateTime, t.id
		}
	}
	for _, m := range r.EnhancedEvents {
		switch m.EnhancedEventType {
		case TypeGateOutDestination:
			f.PickedUpDateTime = m.EventDateTime
		case TypeEmptyReturn:
			f.EmptyReturnedDateTime = m.EventDateTime
		}
	}
	// The box leaves the terminal with its first actual full gate-out or
	// its load onto a train there (on-carriage: its gate-out is inland).
	for i := disc + 1; disc >= 0 && i < len(eq); i++ {
		t := eq[i]
		leaves := t.ev.EquipmentEventTypeCode == "LOAD" || (t.ev.EquipmentEventTypeCode == "GTOT" && t.ev.EmptyIndicatorCode != "EMPTY")
		if leaves && t.ev.EventClassifierCode == dcsa.ClassifierActual && (t.ev.Place() == r.POD || t.ev.Place() == "") {
			f.PickedUpDateTime = t.ev.EventDateTime
			break
		}
	}
	for _, t := range terminal {
		ev := t.ev
		if ev.EquipmentReference != r.EquipmentNumber || ev.EventClassifierCode != dcsa.ClassifierActual ||
			(ev.Place() != "" && ev.Place() != r.POD) {
			continue
		}
		switch ev.EquipmentEventTypeCode {
		case "AVPU":
			f.AvailableDateTime, f.AvailableEventID = ev.EventDateTime, t.id
		case "CUSS", "CUSI":
			f.Holds = append(f.Holds, readiness.Hold{HoldType: readiness.HoldCustoms, HoldCode: ev.EquipmentEventTypeCode,
				PlacedDateTime: ev.EventDateTime, PlacedEventID: t.id})
		case "CUSR":
			for i := range f.Holds {
				if h := &f.Holds[i]; h.HoldType == readiness.HoldCustoms && h.ReleasedDateTime == "" {
					h.ReleasedDateTime, h.ReleasedEventID = ev.EventDateTime, t.id
				}
			}
		}
	}
	return f
}

// milestones derives enhancedEvents, in journey order: ATD_POL,
// TRANSSHIPMENTs (by time), ETA_REVISIONs (in revision order), ATA_POD or
// else ETA_POD, DISCHARGE_POD, GATE_OUT_FULL_DESTINATION, EMPTY_RETURN.
func milestones(r journeys.Result, eq, vessel []timed, etas []ETAVersion) []journeys.Milestone {
	out := []journeys.Milestone{}
	actual := func(t timed) bool { return t.ev.EventClassifierCode == dcsa.ClassifierActual }
	if r.POL != "" {
		for _, t := range vessel {
			if t.ev.TransportEventTypeCode == "DEPA" && actual(t) && t.ev.Place() == r.POL {
				out = append(out, journeys.Milestone{EnhancedEventType: TypeATDPOL, UNLocationCode: r.POL, EventDateTime: t.ev.EventDateTime})
				break
			}
		}
	}
	// One TRANSSHIPMENT per port between POL and POD: its actual discharge,
	// else the latest estimate (an estimate and the actual event are two
	// events to most carriers); the reload likewise.
	var hubs []string
	disc, reload := map[string]timed{}, map[string]timed{}
	better := func(have timed, ok bool, t timed) bool { return !ok || !actual(have) || actual(t) }
	for _, t := range eq {
		p := t.ev.Place()
		if p == "" || p == r.POL || p == r.POD || t.ev.inland() {
			continue
		}
		switch t.ev.EquipmentEventTypeCode {
		case "DISC":
			have, ok := disc[p]
			if !ok {
				hubs = append(hubs, p)
			}
			if better(have, ok, t) {
				disc[p] = t
			}
		case "LOAD":
			if have, ok := reload[p]; better(have, ok, t) {
				reload[p] = t
			}
		}
	}
	for _, p := range hubs {
		m := journeys.Milestone{EnhancedEventType: TypeTransshipment, UNLocationCode: p, EventDateTime: disc[p].ev.EventDateTime}
		if l, ok := reload[p]; ok {
			m.ReloadDateTime = l.ev.EventDateTime
		}
		out = append(out, m)
	}
	if r.POD != "" {
		prev := ""
		for _, v := range etas {
			if v.Place != r.POD || v.At == prev {
				continue
			}
			out = append(out, journeys.Milestone{EnhancedEventType: TypeETARevision, UNLocationCode: r.POD, EventDateTime: v.At,
				PreviousEventDateTime: prev, RevisedDateTime: v.Created})
			prev = v.At
		}
	}
	var eta, ata *fields
	for i := range vessel {
		ev := vessel[i].ev
		if ev.TransportEventTypeCode != "ARRI" || r.POD == "" || ev.Place() != r.POD {
			continue
		}
		if ev.EventClassifierCode == dcsa.ClassifierActual {
			ata = ev
		} else {
			eta = ev
		}
	}
	if ata != nil {
		out = append(out, journeys.Milestone{EnhancedEventType: TypeATAPOD, UNLocationCode: r.POD, EventDateTime: ata.EventDateTime})
	} else if eta != nil {
		out = append(out, journeys.Milestone{EnhancedEventType: TypeETAPOD, UNLocationCode: r.POD, EventDateTime: eta.EventDateTime})
	}
	// After the last actual discharge at POD: the full gate-out, then the empty return.
	podDisc := -1
	for i, t := range eq {
		if t.ev.EquipmentEventTypeCode == "DISC" && actual(t) && r.POD != "" && t.ev.Place() == r.POD && !t.ev.inland() {
			podDisc = i
		}
	}
	if podDisc >= 0 {
		out = append(out, journeys.Milestone{EnhancedEventType: TypeDischargePOD, UNLocationCode: r.POD, EventDateTime: eq[podDisc].ev.EventDateTime})
		gateOut := -1
		for i := podDisc + 1; i < len(eq); i++ {
			if t := eq[i]; t.ev.EquipmentEventTypeCode == "GTOT" && actual(t) && t.ev.EmptyIndicatorCode != "EMPTY" {
				gateOut = i
			}
		}
		if gateOut >= 0 {
			g := eq[gateOut].ev
			out = append(out, journeys.Milestone{EnhancedEventType: TypeGateOutDestination, UNLocationCode: g.Place(), EventDateTime: g.EventDateTime})
			for i := gateOut + 1; i < len(eq); i++ {
				if t := eq[i]; t.ev.EquipmentEventTypeCode == "GTIN" && actual(t) && t.ev.EmptyIndicatorCode == "EMPTY" {
					out = append(out, journeys.Milestone{EnhancedEventType: TypeEmptyReturn, UNLocationCode: t.ev.Place(), EventDateTime: t.ev.EventDateTime})
					break
				}
			}
		}
	}
	return out
}
