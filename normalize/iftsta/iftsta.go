// Package iftsta normalises UN/EDIFACT IFTSTA (international multimodal status
// report) interchanges, as ocean carriers send them over EDI mailboxes, into
// DCSA 2.0.2 equipment and transport events.
//
// Both IFTSTA layouts are read: D.99B to D.01B nest statuses under a
// consignment (CNI → STS → ..., EQD inside the status group) and D.14A and
// later head each group with the container (EQD → STS → ...). The directory
// in UNH is not checked: the layout is recognised from the segments.
//
// One event is emitted per status and container. What each STS status code
// becomes is decided in one table (statusTable, also in docs/iftsta.md);
// statuses with a code the table skips are left out and counted in Stats;
// those with a code it does not know are left out, counted in Stats and
// reported as repairs (normalize.RepairUnknownCode, the code kept), so one
// exotic status does not dead-letter an interchange's worth of good events
// and none goes unseen. A status that cannot be read (an unreadable or
// implausible date, no date at all) is refused on its own
// (normalize.Result.Refused, Element its index among the payload's STS
// segments); a message without a creation time has all its statuses
// refused. Syntax errors and broken envelopes (UNH without UNT, wrong
// segment counts) fail the whole payload with a *normalize.ParseError.
package iftsta

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/identity"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Format names this source format in ParseErrors.
const Format = "iftsta"

var _ normalize.Parser = Parse

// Stats counts what Parse did and what it left out, for logs and alerts.
type Stats struct {
	Messages int // IFTSTA messages (UNH ... UNT)
	Statuses int // STS segments
	Events   int // events emitted
	// Skipped counts statuses per code that the table deliberately does not
	// map (customs and carrier release, availability...).
	Skipped map[string]int
	// Unknown counts statuses per code that the table does not know.
	Unknown map[string]int
	// Undated counts mapped statuses with no DTM that could date them
	// (each also refused).
	Undated int
}

// Parse is the normalize.Parser for IFTSTA; ParseStats also says what it left out.
func Parse(raw []byte, env normalize.Envelope) (normalize.Result, error) {
	res, _, err := ParseStats(raw, env)
	return res, err
}

// ParseStats parses one payload, which may hold several interchanges (UNB ...
// UNZ) or bare messages (UNH ... UNT). On error it returns no events.
func ParseStats(raw []byte, env normalize.Envelope) (normalize.Result, Stats, error) {
	res, st, err := parseStats(raw, env)
	if err != nil {
		return normalize.Result{}, st, err
	}
	return res, st, nil
}

func parseStats(raw []byte, env normalize.Envelope) (normalize.Result, Stats, error) {
	var st Stats
	var none normalize.Result
	segs, err := splitSegments(raw)
	if err != nil {
		return none, st, err
	}
	if len(segs) == 0 {
		return none, st, parseErr("", "empty payload")
	}
	b := builder{env: env, stats: &st}
	var (
		unb        *segment  // open interchange
		unbCreated time.Time // its preparation time, zero if none
		msg        *message
		msgStart   int
		msgs, grps int // in the open interchange
	)
	for i := range segs {
		s := &segs[i]
		if msg == nil && s.tag != "UNH" && s.tag != "UNB" && s.tag != "UNZ" && s.tag != "UNG" && s.tag != "UNE" {
			return none, st, parseErr(s.path(), "segment outside a message (no UNH before it)")
		}
		switch s.tag {
		case "UNB":
			if unb != nil {
				return none, st, parseErr(s.path(), "UNB inside an interchange that has no UNZ yet")
			}
			if msg != nil {
				return none, st, parseErr(s.path(), "UNB inside message "+clip(msg.ref))
			}
			t, err := unbTime(s)
			if err != nil {
				return none, st, err
			}
			unb, unbCreated, msgs, grps = s, t, 0, 0
		case "UNZ":
			if unb == nil {
				return none, st, parseErr(s.path(), "UNZ without UNB")
			}
			if msg != nil {
				return none, st, parseErr(s.path(), "UNZ before the UNT of message "+clip(msg.ref))
			}
			// The trailer only checks the envelope: every message in it was
			// read whole (UNH to UNT), so a mismatch is counted, not fatal.
			if n, ok := normalize.Digits(s.get(0, 0)); !ok || (n != msgs && (grps == 0 || n != grps)) {
				b.res.Repairs = append(b.res.Repairs, normalize.Repair{Kind: normalize.RepairEnvelopeMismatch, Path: s.path(),
					Value: "interchange control count " + clip(s.get(0, 0)) + " but the interchange has " + strconv.Itoa(msgs) + " messages"})
			}
			if s.get(1, 0) != unb.get(4, 0) {
				b.res.Repairs = append(b.res.Repairs, normalize.Repair{Kind: normalize.RepairEnvelopeMismatch, Path: s.path(),
					Value: "interchange reference " + clip(s.get(1, 0)) + " does not match UNB " + clip(unb.get(4, 0))})
			}
			unb, unbCreated = nil, time.Time{}
		case "UNG", "UNE":
			if msg != nil {
				return none, st, parseErr(s.path(), s.tag+" inside message "+clip(msg.ref))
			}
			if s.tag == "UNG" {
				grps++
			}
		case "UNH":
			if msg != nil {
				return none, st, parseErr(s.path(), "UNH before the UNT of message "+clip(msg.ref))
			}
			if typ := s.get(1, 0); typ != "IFTSTA" {
				return none, st, parseErr(s.path(), "message type "+clip(typ)+" is not IFTSTA")
			}
			msg, msgStart = newMessage(s.get(0, 0)), i
			msgs++
		case "UNT":
			if n, ok := normalize.Digits(s.get(0, 0)); !ok || n != i-msgStart+1 {
				return none, st, parseErr(s.path(), "segment count "+clip(s.get(0, 0))+" but the message has "+strconv.Itoa(i-msgStart+1)+" segments")
			}
			if s.get(1, 0) != msg.ref {
				return none, st, parseErr(s.path(), "message reference "+clip(s.get(1, 0))+" does not match UNH "+clip(msg.ref))
			}
			st.Messages++
			if err := b.message(msg, unbCreated); err != nil {
				return none, st, err
			}
			msg = nil
		default:
			if err := msg.add(s); err != nil {
				return none, st, err
			}
		}
	}
	last := &segs[len(segs)-1]
	if msg != nil {
		return none, st, parseErr(last.path(), "message "+clip(msg.ref)+" has no UNT: payload truncated")
	}
	if unb != nil {
		return none, st, parseErr(last.path(), "interchange has no UNZ: payload truncated")
	}
	if st.Messages == 0 {
		return none, st, parseErr("", "no IFTSTA message in the payload")
	}
	st.Events = len(b.res.Events)
	return b.res, st, nil
}

// unbTime reads the UNB preparation date and time (YYMMDD or CCYYMMDD, HHMM),
// taken as UTC; zero when the UNB has none.
func unbTime(s *segment) (time.Time, error) {
	date, hhmm := s.get(3, 0), s.get(3, 1)
	if date == "" {
		return time.Time{}, nil
	}
	format := "201"
	if len(date) == 8 {
		format = "203"
	}
	t, err := parseDTM(date+hhmm, format, "")
	if err != nil {
		return time.Time{}, parseErr(s.path(), "preparation date/time "+clip(date+":"+hhmm)+" is not YYMMDD:HHMM")
	}
	return t, nil
}

func parseErr(path, reason string) *normalize.ParseError {
	return &normalize.ParseError{Format: Format, Path: path, Reason: reason}
}

// builder turns messages into events.
type builder struct {
	env   normalize.Envelope
	stats *Stats
	res   normalize.Result
}

// refuseMessage refuses every status of a message for err, a fault of the
// message itself; a message without statuses is refused once, so the
// fault is seen.
func (b *builder) refuseMessage(m *message, err *normalize.ParseError) {
	if len(m.statuses) == 0 {
		b.refuse(b.stats.Statuses, err)
		return
	}
	for range m.statuses {
		b.stats.Statuses++
		e := *err
		b.refuse(b.stats.Statuses-1, &e)
	}
}

// refuse records the status as refused: err is its *normalize.ParseError.
func (b *builder) refuse(element int, err *normalize.ParseError) {
	err.Element = element
	b.res.Refused = append(b.res.Refused, err)
}

// message emits the events of one message. eventCreatedDateTime is the
// message's DTM 137; else the UNB preparation time (the sender's clock,
// nearer the event than ours); else when contrack received the payload.
func (b *builder) message(m *message, unbCreated time.Time) error {
	var created time.Time
	createdPath := "message " + clip(m.ref)
	switch {
	case m.created != nil:
		t, err := parseDTM(m.created.value, m.created.format, m.created.zone)
		if err != nil {
			b.refuseMessage(m, dateErr(m.created, err))
			return nil
		}
		created, createdPath = t, segPath(m.created.num, "DTM")
	case !unbCreated.IsZero():
		created, createdPath = unbCreated, "UNB"
	case !b.env.ReceivedAt.IsZero():
		created = b.env.ReceivedAt.UTC().Truncate(time.Second)
	default:
		b.refuseMessage(m, parseErr(createdPath, "no creation time: no DTM 137, no UNB date and no receipt time"))
		return nil
	}
	c := createdAt{t: created, s: formatTime(created), path: createdPath}
	n := 0
	for _, st := range m.statuses {
		n += max(1, len(st.equipment))
	}
	b.res.Events = slices.Grow(b.res.Events, n)
	for _, st := range m.statuses {
		if err := b.status(m, st, c); err != nil {
			b.refuse(b.stats.Statuses-1, err)
		}
	}
	return nil
}

type createdAt struct {
	t    time.Time
	s    string
	path string
}

func dateErr(x *dtm, err error) *normalize.ParseError {
	reason := "date " + clip(x.value) + " does not match format " + clip(x.format)
	if err == errUnsupportedFormat {
		reason = "date format " + clip(x.format) + " is not supported (102, 203, 204, 205, 303, 304, 101, 201, 202)"
	}
	return parseErr(segPath(x.num, "DTM"), reason)
}

// status emits the events of one status, or returns why it is refused.
func (b *builder) status(m *message, st *status, created createdAt) *normalize.ParseError {
	b.stats.Statuses++
	mp, ok := statusTable[st.code]
	if name, inRec24 := rec24[st.code]; !ok && inRec24 {
		mp, ok = mapping{name: name, skip: "UNECE Rec. 24 " + strconv.Quote(name) + " is no container movement DCSA 2.0.2 carries"}, true
	}
	switch {
	case !ok:
		b.stats.Unknown = inc(b.stats.Unknown, st.code)
		b.res.Repairs = append(b.res.Repairs, normalize.Repair{Kind: normalize.RepairUnknownCode, Path: segPath(st.num, "STS"), Value: st.code})
		return nil
	case mp.eventType == "":
		// Known and deliberately not an event: left out, and counted where
		// the data-quality figures see it.
		b.stats.Skipped = inc(b.stats.Skipped, st.code)
		b.res.Repairs = append(b.res.Repairs, normalize.Repair{Kind: normalize.RepairNotCarriedLeftOut, Path: segPath(st.num, "STS"), Value: st.code + ": " + mp.skip})
		return nil
	}
	tdt := pickTDT(m, st, mp)
	x := eventDTM(st, mp, tdt)
	if x == nil {
		b.stats.Undated++
		return parseErr(segPath(st.num, "STS"), "status "+clip(st.code)+" has no DTM that dates it")
	}
	happened, err := parseDTM(x.value, x.format, x.zone)
	if err != nil {
		return dateErr(x, err)
	}
	classifier := eventTimeQualifiers[x.qual]
	if te := validate.EventTimes(created.t, happened, classifier, b.env.ReceivedAt); te != nil {
		path := segPath(x.num, "DTM")
		if te.Field == "eventCreatedDateTime" {
			path = created.path
		}
		return parseErr(path, te.Error())
	}
	when := formatTime(happened)

	p := pickPlace(st, mp, tdt)
	var loc *dcsa.Location
	if p.locode != "" || p.name != "" {
		loc = &dcsa.Location{LocationName: p.name, UNLocationCode: p.locode}
		if p.facility != "" {
			loc.FacilityCode, loc.FacilityCodeListProvider = p.facility, "SMDG"
		}
	}
	mode := mp.mode
	if mode == modeVessel && tdt != nil && tdt.mode == modeBarge {
		mode = modeBarge
	}
	if mode == "" && tdt != nil {
		mode = tdt.mode
	}
	var tc *dcsa.TransportCall
	if mode != "" {
		tc = b.transportCall(mode, tdt, loc, p)
	} else if mp.eventType == dcsa.EventTypeTransport {
		// A Rec. 24 arrival or departure says nothing of the means of
		// transport: without a TDT there is no transport call to place it.
		return parseErr(segPath(st.num, "STS"), "status "+clip(st.code)+" ("+mp.name+") is a transport event, and no TDT of the status gives its means of transport")
	}
	docs := documents(m, st)
	carrier := b.env.SCAC
	if len(carrier) > validate.MaxCarrierCode {
		carrier = ""
	}
	eqs := containers(st)
	if mp.eventType == dcsa.EventTypeEquipment && len(eqs) == 1 && eqs[0].id == "" {
		// A freight status of a consignment (EANCOM's, with goods items
		// and no EQD): there is no container for an equipment event.
		return parseErr(segPath(st.num, "STS"), "status "+clip(st.code)+" ("+mp.name+") names no container (no EQD, no RFF+EQ): an equipment event needs one")
	}
	for i, eq := range eqs {
		if i > 0 { // every event owns its parts: a consumer may change one
			tc, loc, docs = cloneCall(tc), cloneLocation(loc), slices.Clone(docs)
		}
		e := dcsa.Event{
			EventCreatedDateTime: created.s,
			EventType:            mp.eventType,
			EventClassifierCode:  classifier,
			EventDateTime:        when,
			EquipmentReference:   eq.id,
			CarrierCode:          carrier,
			TransportCall:        tc,
			DocumentReferences:   docs,
		}
		if mp.eventType == dcsa.EventTypeEquipment {
			e.EquipmentEventTypeCode = mp.code
			e.ISOEquipmentCode = eq.isoCode
			e.EmptyIndicatorCode = eq.fullEmpty
			if e.EmptyIndicatorCode == "" {
				e.EmptyIndicatorCode = mp.empty
			}
			e.EventLocation = loc
		} else {
			e.TransportEventTypeCode = mp.code
		}
		e.EventID = identity.EventIDFromFields(e, b.env.SCAC)
		b.res.Events = append(b.res.Events, e)
	}
	return nil
}

func cloneCall(tc *dcsa.TransportCall) *dcsa.TransportCall {
	if tc == nil {
		return nil
	}
	c := *tc
	c.Location = cloneLocation(tc.Location)
	if tc.Vessel != nil {
		v := *tc.Vessel
		c.Vessel = &v
	}
	return &c
}

func cloneLocation(l *dcsa.Location) *dcsa.Location {
	if l == nil {
		return nil
	}
	c := *l
	return &c
}

func inc(m map[string]int, k string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[k]++
	return m
}

// levels are the scopes a status inherits from, innermost first: its own
// group, its equipment group, its consignment, the message. Unused entries
// are nil.
func levels(m *message, st *status) [4]*scope {
	l := [4]*scope{st.detail}
	n := 1
	if st.group != nil {
		l[n] = &st.group.scope
		n++
	}
	if st.cons != nil {
		l[n] = st.cons
		n++
	}
	l[n] = &m.top
	return l
}

// pickTDT finds the transport a status happened on. A status that implies a
// mode (vessel, rail) takes the innermost TDT of a fitting mode, inherited
// from the consignment or message if need be; any other status only a TDT of
// its own group or container: a gate move is not on the consignment's vessel.
func pickTDT(m *message, st *status, mp mapping) *transport {
	for i, sc := range levels(m, st) {
		if sc == nil || (mp.mode == "" && (i > 1 || (i == 1 && st.group == nil))) {
			return nil
		}
		for _, t := range sc.tdts {
			if modeFits(mp.mode, t.mode) {
				return t
			}
		}
	}
	return nil
}

// eventDTM picks the DTM that dates a status: the first event-time DTM of its
// own group; else the TDT group's DTM for the status's end of the leg (a VA
// whose TDT group has only an ETA 132 is an estimated arrival); else the first
// event-time DTM of its equipment group. nil when none applies.
func eventDTM(st *status, mp mapping, tdt *transport) *dtm {
	if x := firstEventDTM(st.detail.dates); x != nil {
		return x
	}
	if tdt != nil {
		var prefs []string
		switch mp.side {
		case sideDeparture:
			prefs = departureQualifiers
		case sideArrival:
			prefs = arrivalQualifiers
		}
		for _, q := range prefs {
			for _, x := range tdt.dates {
				if x.qual == q {
					return x
				}
			}
		}
	}
	if st.group != nil {
		return firstEventDTM(st.group.dates)
	}
	return nil
}

func firstEventDTM(ds []*dtm) *dtm {
	for _, x := range ds {
		if _, ok := eventTimeQualifiers[x.qual]; ok {
			return x
		}
	}
	return nil
}

// pickPlace locates a status: its own group's LOC (an event-place qualifier,
// else one for its end of the leg, else the first with a UN/LOCODE: D.99B
// gives a status group one LOC and it is the status's place whatever its
// qualifier); else the TDT group's LOC for its end of the leg; else an
// event-place LOC of its equipment group. The consignment's and message's
// places (origin, destination) are never used: a load at a transhipment
// port is not at the port of loading.
func pickPlace(st *status, mp mapping, tdt *transport) place {
	own := st.detail.places
	if p, ok := byQualifier(own, eventQualifiers); ok {
		return p
	}
	if p, ok := byQualifier(own, sideQualifiers[mp.side]); ok {
		return p
	}
	for _, p := range own {
		if p.locode != "" {
			return p
		}
	}
	if tdt != nil {
		if p, ok := byQualifier(tdt.places, sideQualifiers[mp.side]); ok {
			return p
		}
	}
	if st.group != nil {
		if p, ok := byQualifier(st.group.places, eventQualifiers); ok {
			return p
		}
	}
	return place{}
}

func byQualifier(ps []place, quals []string) (place, bool) {
	for _, q := range quals {
		for _, p := range ps {
			if p.qual == q && (p.locode != "" || p.name != "") {
				return p, true
			}
		}
	}
	return place{}, false
}

// containers are the equipment a status concerns: the EQDs of its group, or
// the container heading its group, or, when the status names none, the
// RFF+EQ container numbers of the status or its consignment. A status about
// no container still yields one event (equipmentReference empty): a booking
// subscription can match it by its document references.
func containers(st *status) []equipment {
	if st.group != nil {
		return []equipment{st.group.equipment}
	}
	if len(st.equipment) > 0 {
		return st.equipment
	}
	for _, sc := range [...]*scope{st.detail, st.cons} {
		if sc == nil {
			continue
		}
		var eqs []equipment
		for _, r := range sc.refs {
			if r.qual == validate.ReferenceTypeEquipment && len(r.value) <= validate.MaxEquipmentReference {
				eqs = append(eqs, equipment{id: strings.ToUpper(r.value)})
			}
		}
		if len(eqs) > 0 {
			return eqs
		}
	}
	return []equipment{{}}
}

// documents collects RFF+BN (booking → BKG) and RFF+BM (bill of lading →
// TRD) from the status outwards, without duplicates.
func documents(m *message, st *status) []dcsa.DocumentReference {
	var docs []dcsa.DocumentReference
	add := func(refs []reference) {
		for _, r := range refs {
			var typ string
			switch r.qual {
			case "BN":
				typ = dcsa.DocBooking
			case "BM":
				typ = dcsa.DocTransportDoc
			default:
				continue
			}
			if !slices.Contains(docs, dcsa.DocumentReference{DocumentReferenceType: typ, DocumentReferenceValue: r.value}) {
				docs = append(docs, dcsa.DocumentReference{DocumentReferenceType: typ, DocumentReferenceValue: r.value})
			}
		}
	}
	for _, sc := range levels(m, st) {
		if sc == nil {
			break
		}
		add(sc.refs)
		for _, t := range sc.tdts {
			add(t.refs)
		}
	}
	return docs
}

// transportCall builds the call a status happened at: mode, voyage (TDT
// conveyance reference, else RFF+VON), vessel when the TDT names an IMO
// number (2.0.2 requires it of a vessel), and place. Its id comes from
// identity.TransportCallID, so the LOAD and the DEPA of one call share it;
// a call with neither vessel nor voyage (a bare rail status) shares its id
// with every such call of the carrier at that place and mode.
func (b *builder) transportCall(mode string, tdt *transport, loc *dcsa.Location, p place) *dcsa.TransportCall {
	tc := &dcsa.TransportCall{ModeOfTransport: mode, UNLocationCode: p.locode}
	if p.locode != "" {
		tc.Location = cloneLocation(loc)
	}
	if tdt != nil {
		tc.CarrierVoyageNumber = tdt.voyage
		if tc.CarrierVoyageNumber == "" {
			for _, r := range tdt.refs {
				if r.qual == "VON" && len(r.value) <= validate.MaxVoyageNumber {
					tc.CarrierVoyageNumber = r.value
					break
				}
			}
		}
		if tdt.imo != "" && (mode == modeVessel || mode == modeBarge) {
			tc.Vessel = &dcsa.Vessel{VesselIMONumber: tdt.imo, VesselName: tdt.name, VesselCallSignNumber: tdt.callSign}
		}
	}
	// The call is the vessel's (or train's) visit to the port; the terminal
	// is left out of its id because statuses of one call do not all name it.
	key := *tc
	key.Location = nil
	tc.TransportCallID = identity.TransportCallID(b.env.SCAC, key)
	return tc
}
