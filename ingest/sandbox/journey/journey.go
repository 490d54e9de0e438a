// Package journey generates the sandbox carriers' shipments: for any
// (SCAC, identifier kind, identifier value) a deterministic, realistic ocean
// journey — empty pick-up, gate in, load, departure, optional transshipments,
// arrival, discharge, optional rail on-carriage, gate out, empty return —
// revealed against a clock: milestones in the past are actual (ACT), those in
// the future planned (PLN) or estimated (EST), and estimates move as time
// passes and converge on the actual time.
//
// Everything is derived from a SHA-256 seed of the query, so the same query
// at the same instant always yields the same journey, event ids included.
// Journeys repeat: after the empty return and an idle gap the same number
// starts a new cycle (same route, next voyage numbers, new event ids), so a
// sandbox number always has a shipment in progress or about to start.
//
// The package knows nothing of carrier formats: the sandbox renders a
// Journey as DCSA TNT 2.2 / 1.2 JSON, EDIFACT IFTSTA or COSCO JSON.
package journey

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Kind is the kind of identifier a journey is queried by.
type Kind string

// Identifier kinds.
const (
	KindContainer Kind = "container"
	KindBooking   Kind = "booking"
	KindBill      Kind = "bill"
)

// Classifier is the DCSA event classifier.
type Classifier string

// Classifiers.
const (
	ACT Classifier = "ACT"
	EST Classifier = "EST"
	PLN Classifier = "PLN"
)

// Event types, as DCSA eventType.
const (
	TypeEquipment = "EQUIPMENT"
	TypeTransport = "TRANSPORT"
	TypeShipment  = "SHIPMENT"
)

// Event codes: DCSA equipment (GTOT, GTIN, LOAD, DISC), transport (DEPA,
// ARRI) and shipment (CONF of the booking, ISSU of the transport document)
// event type codes.
const (
	CodeGateOut   = "GTOT"
	CodeGateIn    = "GTIN"
	CodeLoad      = "LOAD"
	CodeDischarge = "DISC"
	CodeDepart    = "DEPA"
	CodeArrive    = "ARRI"
	CodeConfirmed = "CONF"
	CodeIssued    = "ISSU"
)

// Modes of transport, as DCSA modeOfTransport.
const (
	ModeVessel = "VESSEL"
	ModeRail   = "RAIL"
	ModeTruck  = "TRUCK"
)

// Facility types, as DCSA facilityTypeCode.
const (
	FacilityPort   = "POTE" // port terminal
	FacilityDepot  = "DEPO" // empty container depot
	FacilityInland = "INTE" // inland (rail) terminal
)

// Vessel is a ship with a valid IMO number.
type Vessel struct {
	Name     string
	IMO      string // seven digits, valid check digit
	Flag     string // ISO 3166-1 alpha-2
	CallSign string
	Operator string // SCAC of the operating carrier
}

// Leg is one transport leg: a vessel voyage between two ports or a rail leg
// from the port of discharge to an inland terminal.
type Leg struct {
	Mode    string // ModeVessel or ModeRail
	From    Port
	To      Port
	Vessel  *Vessel // nil for rail legs
	Voyage  string  // e.g. "412W"; rail legs carry a train number
	Service string  // carrier service code, e.g. "AE7"; empty for rail
	// DepartureCallID and ArrivalCallID are stable ids of the transport
	// calls at From and To (DCSA transportCallID).
	DepartureCallID string
	ArrivalCallID   string
	// Departs and Arrives are when the vessel actually leaves From and
	// reaches To (UTC), known to the sandbox before they happen: the events
	// show them only once they are past (before, estimates that converge on
	// them). The vessel position simulator sails between them. Zero for
	// rail legs.
	Departs, Arrives time.Time
}

// Container is one piece of equipment of the shipment.
type Container struct {
	Number   string // ISO 6346, valid check digit
	ISOCode  string // size-type code, e.g. 45G1
	SizeType string // label, e.g. 40HQ
	Seal     string // carrier seal number
}

// Event is one milestone as known at Journey.Now.
type Event struct {
	// ID is stable: the same milestone with the same classifier keeps its id
	// across polls (an estimate keeps its id while its time moves).
	ID         string
	Type       string // TypeEquipment, TypeTransport or TypeShipment
	Code       string // Code* constants
	Classifier Classifier
	// Time is when the milestone happened, is estimated or planned, in the
	// port's time zone, whole minutes.
	Time time.Time
	// Created is when the carrier recorded this version of the event (UTC),
	// never after Journey.Now.
	Created  time.Time
	Port     Port
	Facility string // Facility* constants; empty for shipment events
	// Container indexes Journey.Containers; -1 for transport and shipment events.
	Container int
	Empty     bool
	// Leg indexes Journey.Legs: the leg whose transport call the event belongs
	// to; Departure says whether that is the leg's departure (else arrival) call.
	Leg       int
	Departure bool
	Mode      string
	// DelayReasonCode (SMDG, e.g. WEA) and ChangeRemark explain a late arrival.
	DelayReasonCode string
	ChangeRemark    string
	// DocumentType is BKG or TRD for shipment events.
	DocumentType string
	seq          int
}

// Journey is one shipment as seen at Now.
type Journey struct {
	SCAC  string
	Kind  Kind
	Value string // the queried identifier, upper-cased and trimmed
	// Cycle counts the repetitions of this number's journey since the epoch.
	Cycle      int
	Booking    string // carrier booking reference
	Bill       string // transport document (bill of lading) reference
	Containers []Container
	Legs       []Leg
	// Events are every milestone, sorted by Time (ties keep milestone order).
	Events []Event
	// Booked is when the booking was confirmed (start of the cycle).
	Booked time.Time
	Now    time.Time
}

// POL is the port of loading, POD the port of discharge (last vessel call),
// Destination the place of delivery (POD, or the inland terminal).
func (j Journey) POL() Port { return j.Legs[0].From }

// POD is the port of discharge.
func (j Journey) POD() Port {
	for i := len(j.Legs) - 1; i >= 0; i-- {
		if j.Legs[i].Mode == ModeVessel {
			return j.Legs[i].To
		}
	}
	return j.Legs[len(j.Legs)-1].To
}

// Destination is the place of delivery.
func (j Journey) Destination() Port { return j.Legs[len(j.Legs)-1].To }

// Options force features of a journey, for test numbers; the zero value
// leaves everything to the seed.
type Options struct {
	// Containers is the container count of a booking or bill journey (1-3
	// when zero). A container journey always has exactly one container.
	Containers int
	// MinTransshipments forces at least this many transshipments (max 2).
	MinTransshipments int
}

// Epoch anchors the journey cycles; it is a constant so that journeys do not
// change when the sandbox restarts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// revision is how often estimates are revised (in journey time).
const revision = 6 * time.Hour

var idSpace = uuid.MustParse("6f1c2a7e-3b0d-5e8a-9c41-2d7f0b9e5a13")

// Generate returns the journey of (scac, kind, value) as known at now.
func Generate(scac string, kind Kind, value string, now time.Time) Journey {
	return GenerateWith(scac, kind, value, now, Options{})
}

// GenerateWith is Generate with forced features.
func GenerateWith(scac string, kind Kind, value string, now time.Time, opts Options) Journey {
	scac = strings.ToUpper(strings.TrimSpace(scac))
	value = strings.ToUpper(strings.TrimSpace(value))
	key := scac + "|" + string(kind) + "|" + value
	p := plan(key, scac, kind, opts)

	j := Journey{SCAC: scac, Kind: kind, Value: value, Now: now.Truncate(time.Second)}
	// Place now in a cycle of period p.period, phase-shifted per number.
	anchor := Epoch.Add(-time.Duration(p.phase) * time.Minute)
	period := time.Duration(p.period) * time.Minute
	k := int(floorDiv(int64(now.Sub(anchor)), int64(period)))
	cycleStart := anchor.Add(time.Duration(k) * period)
	j.Cycle = k
	j.Booked = cycleStart
	t0 := cycleStart.Add(time.Duration(p.gapBefore) * time.Minute)

	j.Booking, j.Bill = p.booking, p.bill
	j.Containers = p.containers
	for i, l := range p.legs {
		leg := l.leg
		if leg.Mode == ModeVessel {
			leg.Voyage = fmt.Sprintf("%03d%s", (l.voyageBase+k)%1000, l.direction)
		} else {
			leg.Voyage = fmt.Sprintf("RT%04d", (l.voyageBase+k*7)%10000)
		}
		leg.DepartureCallID = j.id(k, fmt.Sprintf("call|%d|dep", i))
		leg.ArrivalCallID = j.id(k, fmt.Sprintf("call|%d|arr", i))
		if leg.Vessel != nil {
			leg.Departs = t0.Add(time.Duration(p.vesselTimes[i][0]) * time.Minute).UTC()
			leg.Arrives = t0.Add(time.Duration(p.vesselTimes[i][1]) * time.Minute).UTC()
		}
		j.Legs = append(j.Legs, leg)
	}

	f := estimateFactor(key, k, now.Sub(anchor))
	revStart := anchor.Add(time.Duration(floorDiv(int64(now.Sub(anchor)), int64(revision))) * revision)
	if revStart.Before(cycleStart) {
		revStart = cycleStart
	}
	for _, ch := range p.chains {
		var prev time.Time
		est := false
		for _, m := range ch {
			s := t0.Add(time.Duration(m.s) * time.Minute)
			t := t0.Add(time.Duration(m.t) * time.Minute)
			e := Event{
				Type: m.typ, Code: m.code, Port: m.port, Facility: m.facility,
				Container: m.container, Empty: m.empty, Leg: m.leg, Departure: m.departure,
				Mode: m.mode, DocumentType: m.doc, seq: m.seq,
			}
			switch {
			case m.typ == TypeShipment && m.code == CodeConfirmed:
				t = cycleStart
				fallthrough
			case !t.After(now):
				e.Classifier, e.Time = ACT, t
				e.Created = t.Add(time.Duration(5+m.seq%40) * time.Minute)
				if e.Created.After(j.Now) {
					e.Created = j.Now
				}
				if m.code == CodeArrive && t.Sub(s) > 12*time.Hour {
					e.DelayReasonCode, e.ChangeRemark = "WEA", "Bad weather"
				}
			case m.typ == TypeShipment:
				continue // documents are not announced before they are issued
			case est || m.vessel || !s.After(now):
				est = true
				e.Classifier = EST
				e.Time = t.Add(time.Duration(float64(t.Sub(now)) * f)).Truncate(time.Minute)
				e.Created = revStart
				if m.code == CodeArrive && e.Time.Sub(s) > 12*time.Hour {
					e.DelayReasonCode, e.ChangeRemark = "WEA", "Bad weather"
				}
			default:
				e.Classifier, e.Time, e.Created = PLN, s, cycleStart
			}
			if e.Classifier != ACT {
				if soonest := now.Truncate(time.Minute).Add(2 * time.Minute); e.Time.Before(soonest) {
					e.Time = soonest
				}
				if !prev.IsZero() && !e.Time.After(prev) {
					e.Time = prev.Add(time.Minute)
				}
			}
			prev = e.Time
			e.Time = e.Time.In(e.Port.Location())
			e.ID = j.id(k, m.key+"|"+string(e.Classifier))
			j.Events = append(j.Events, e)
		}
	}
	slices.SortStableFunc(j.Events, func(a, b Event) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return a.seq - b.seq
	})
	return j
}

func (j Journey) id(cycle int, what string) string {
	return uuid.NewSHA1(idSpace, fmt.Appendf(nil, "%s|%s|%s|%d|%s", j.SCAC, j.Kind, j.Value, cycle, what)).String()
}

// estimateFactor is the relative error of estimates in one revision window:
// an estimate is T + (T-now)·f, so it converges on the actual time T.
func estimateFactor(key string, cycle int, sinceAnchor time.Duration) float64 {
	rev := floorDiv(int64(sinceAnchor), int64(revision))
	r := newRand(fmt.Sprintf("%s|est|%d|%d", key, cycle, rev))
	return -0.10 + r.Float64()*0.25
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func newRand(key string) *rand.Rand {
	sum := sha256.Sum256([]byte(key))
	return rand.New(rand.NewPCG(binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])))
}

// milestone is one step of a plan: scheduled (s) and actual (t) minutes after t0.
type milestone struct {
	key       string
	typ, code string
	s, t      int
	port      Port
	facility  string
	container int
	empty     bool
	leg       int
	departure bool
	mode      string
	vessel    bool // vessel milestones are estimated, never planned
	doc       string
	seq       int
}

type plannedLeg struct {
	leg        Leg
	voyageBase int
	direction  string
}

// journeyPlan is everything derived from the seed alone, independent of the clock.
type journeyPlan struct {
	booking, bill string
	containers    []Container
	legs          []plannedLeg
	// chains are milestone sequences whose displayed times must not go
	// backwards: the vessel's, one per container, and the documents'.
	chains [][]milestone
	// vesselTimes are the actual departure and arrival of each vessel leg,
	// minutes after t0.
	vesselTimes [][2]int
	gapBefore   int // minutes from booking to first pick-up
	period      int // minutes per cycle
	phase       int // minutes the cycle grid is shifted by
}

func plan(key, scac string, kind Kind, opts Options) journeyPlan {
	r := newRand(key)
	var p journeyPlan
	value := key[strings.LastIndexByte(key, '|')+1:]

	// Documents and equipment.
	digits := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		return b.String()
	}
	booking := fmt.Sprintf("%d%s", 1+r.IntN(9), digits(8))
	p.booking, p.bill = booking, scac+booking
	switch kind {
	case KindBooking:
		p.booking = value
	case KindBill:
		p.bill = value
	}
	n := 1
	if kind != KindContainer {
		n = 1 + r.IntN(3)
		if opts.Containers > 0 {
			n = opts.Containers
		}
	}
	owners := ownerCodesFor(scac)
	for i := 0; i < n; i++ {
		c := Container{}
		if kind == KindContainer {
			c.Number = value
		} else {
			c.Number = CompleteContainer(owners[r.IntN(len(owners))] + digits(6))
		}
		w := r.IntN(100)
		for _, t := range isoTypes {
			if w < t.weight {
				c.ISOCode, c.SizeType = t.code, t.label
				break
			}
			w -= t.weight
		}
		c.Seal = fmt.Sprintf("%s%s", scac[:min(2, len(scac))], digits(7))
		p.containers = append(p.containers, c)
	}

	// Route: port of loading, transshipment hubs, port of discharge, inland.
	pol, pod := pickPorts(r)
	hubs := pickHubs(r, pol, pod, opts.MinTransshipments)
	stops := append(append([]Port{pol}, hubs...), pod)
	names := slices.Clone(fleetNames(scac))
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	service := tradeCode(pol, pod) + fmt.Sprint(1+r.IntN(9))
	for i := 0; i+1 < len(stops); i++ {
		v := makeVessel(scac, names[i%len(names)])
		dir := "W"
		if d := math.Mod(stops[i+1].Lon-stops[i].Lon+540, 360) - 180; d > 0 {
			dir = "E"
		}
		svc := service
		if i > 0 {
			svc = tradeCode(stops[i], stops[i+1]) + fmt.Sprint(1+r.IntN(9))
		}
		p.legs = append(p.legs, plannedLeg{
			leg:        Leg{Mode: ModeVessel, From: stops[i], To: stops[i+1], Vessel: &v, Service: svc},
			voyageBase: 100 + r.IntN(800), direction: dir,
		})
	}
	var inland *Port
	if r.IntN(100) < 30 {
		var cands []Port
		for _, q := range ports {
			if q.Inland && q.Region == pod.Region {
				cands = append(cands, q)
			}
		}
		if len(cands) > 0 {
			q := cands[r.IntN(len(cands))]
			inland = &q
			p.legs = append(p.legs, plannedLeg{
				leg:        Leg{Mode: ModeRail, From: pod, To: q},
				voyageBase: r.IntN(10000),
			})
		}
	}

	// Schedule: minutes after t0, planned (s) and actual (t).
	h := 60
	day := 24 * h
	between := func(lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	seq := 0
	next := func() int { seq++; return seq }

	type call struct{ s, t int }
	vesselLegs := len(hubs) + 1
	deps := make([]call, vesselLegs)
	arrs := make([]call, vesselLegs)
	deps[0].s = between(4*day, 7*day)
	deps[0].t = deps[0].s + between(0, 18*h)
	for i := 0; i < vesselLegs; i++ {
		if i > 0 {
			deps[i].s = arrs[i-1].s + between(60*h, 6*day)
			deps[i].t = max(deps[i].s+between(0, 12*h), arrs[i-1].t+day)
		}
		leg := p.legs[i].leg
		sail := int(distanceKM(leg.From, leg.To) * 1.5 / 711.2 * float64(day))
		sail = min(max(sail, day), 30*day)
		arrs[i].s = deps[i].s + sail
		arrs[i].t = max(deps[i].t+sail+between(-12*h, 36*h), deps[i].t+12*h)
	}

	var vessel []milestone
	for i := 0; i < vesselLegs; i++ {
		p.vesselTimes = append(p.vesselTimes, [2]int{deps[i].t, arrs[i].t})
		leg := p.legs[i].leg
		vessel = append(vessel,
			milestone{key: fmt.Sprintf("t|%d|DEPA", i), typ: TypeTransport, code: CodeDepart, s: deps[i].s, t: deps[i].t,
				port: leg.From, facility: FacilityPort, container: -1, leg: i, departure: true, mode: ModeVessel, vessel: true, seq: next()},
			milestone{key: fmt.Sprintf("t|%d|ARRI", i), typ: TypeTransport, code: CodeArrive, s: arrs[i].s, t: arrs[i].t,
				port: leg.To, facility: FacilityPort, container: -1, leg: i, mode: ModeVessel, vessel: true, seq: next()})
	}
	p.chains = append(p.chains, vessel)

	lastLeg := len(p.legs) - 1
	end := 0
	railDep := call{}
	if inland != nil {
		off := between(day, 2*day)
		railDep = call{arrs[vesselLegs-1].s + off, arrs[vesselLegs-1].t + off + between(0, 8*h)}
	}
	for c := range p.containers {
		var ch []milestone
		add := func(m milestone, prevT int) int {
			m.container, m.seq = c, next()
			m.key = fmt.Sprintf("c|%d|%s", c, m.key)
			if m.t <= prevT {
				m.t = prevT + h
			}
			ch = append(ch, m)
			return m.t
		}
		stagger := c * between(2*h, 6*h)
		ps := stagger
		t := add(milestone{key: "EPU", typ: TypeEquipment, code: CodeGateOut, s: ps, t: ps + between(-2*h, 6*h),
			port: pol, facility: FacilityDepot, empty: true, leg: 0, departure: true, mode: ModeTruck}, -day)
		gs := deps[0].s - between(36*h, 84*h) + c*h
		t = add(milestone{key: "GTI", typ: TypeEquipment, code: CodeGateIn, s: gs, t: gs + between(-3*h, 6*h),
			port: pol, facility: FacilityPort, leg: 0, departure: true, mode: ModeTruck}, t)
		for i := 0; i < vesselLegs; i++ {
			leg := p.legs[i].leg
			lo := between(4*h, 16*h) - c*30
			t = add(milestone{key: fmt.Sprintf("%d|LOAD", i), typ: TypeEquipment, code: CodeLoad, s: deps[i].s - lo, t: deps[i].t - lo,
				port: leg.From, facility: FacilityPort, leg: i, departure: true, mode: ModeVessel, vessel: true}, t)
			do := between(6*h, 18*h) + c*h
			t = add(milestone{key: fmt.Sprintf("%d|DISC", i), typ: TypeEquipment, code: CodeDischarge, s: arrs[i].s + do, t: arrs[i].t + do + between(-h, 3*h),
				port: leg.To, facility: FacilityPort, leg: i, mode: ModeVessel, vessel: true}, t)
		}
		final, finalFacility := pod, FacilityPort
		gateLeg := vesselLegs - 1
		if inland != nil {
			lo := between(2*h, 6*h)
			t = add(milestone{key: "RAIL|LOAD", typ: TypeEquipment, code: CodeLoad, s: railDep.s - lo, t: railDep.t - lo,
				port: pod, facility: FacilityPort, leg: lastLeg, departure: true, mode: ModeRail}, t)
			transit := int(distanceKM(pod, *inland)*1.3/900*float64(day)) + between(12*h, 36*h) + c*h
			t = add(milestone{key: "RAIL|DISC", typ: TypeEquipment, code: CodeDischarge, s: railDep.s + transit, t: railDep.t + transit + between(-2*h, 10*h),
				port: *inland, facility: FacilityInland, leg: lastLeg, mode: ModeRail}, t)
			final, finalFacility, gateLeg = *inland, FacilityInland, lastLeg
		}
		last := ch[len(ch)-1]
		gos := last.s + between(day, 4*day)
		t = add(milestone{key: "GTO", typ: TypeEquipment, code: CodeGateOut, s: gos, t: last.t + (gos - last.s) + between(-4*h, 12*h),
			port: final, facility: finalFacility, leg: gateLeg, mode: ModeTruck}, t)
		last = ch[len(ch)-1]
		ers := last.s + between(2*day, 7*day)
		t = add(milestone{key: "ERT", typ: TypeEquipment, code: CodeGateIn, s: ers, t: last.t + (ers - last.s) + between(-12*h, 24*h),
			port: final, facility: FacilityDepot, empty: true, leg: gateLeg, mode: ModeTruck}, t)
		end = max(end, t)
		p.chains = append(p.chains, ch)
	}
	p.chains = append(p.chains, []milestone{
		{key: "s|CONF", typ: TypeShipment, code: CodeConfirmed, port: pol, container: -1, doc: "BKG", seq: next()},
		{key: "s|ISSU", typ: TypeShipment, code: CodeIssued, s: deps[0].s + day, t: deps[0].t + day, port: pol, container: -1, doc: "TRD", seq: next()},
	})
	// CONF's time is the booking (cycle start), set in GenerateWith.

	p.gapBefore = between(day, 3*day)
	p.period = p.gapBefore + end + between(5*day, 12*day)
	p.phase = r.IntN(p.period)
	return p
}

func pickPorts(r *rand.Rand) (pol, pod Port) {
	byRegion := map[Region][]Port{}
	for _, q := range ports {
		if !q.Inland {
			byRegion[q.Region] = append(byRegion[q.Region], q)
		}
	}
	pick := func(w map[Region]int) Region {
		total := 0
		for _, v := range w {
			total += v
		}
		n := r.IntN(total)
		for _, reg := range []Region{Asia, Europe, NAmerica, LatAm, Oceania, Africa} {
			if n < w[reg] {
				return reg
			}
			n -= w[reg]
		}
		return Asia
	}
	from := pick(map[Region]int{Asia: 60, Europe: 20, NAmerica: 10, LatAm: 5, Oceania: 3, Africa: 2})
	var to Region
	if from == Asia {
		to = pick(map[Region]int{Europe: 50, NAmerica: 35, LatAm: 7, Oceania: 5, Africa: 3})
	} else {
		to = pick(map[Region]int{Asia: 70, Europe: 10, NAmerica: 10, LatAm: 5, Oceania: 3, Africa: 2})
		if to == from {
			to = Asia
		}
	}
	a, b := byRegion[from], byRegion[to]
	pol = a[r.IntN(len(a))]
	pod = b[r.IntN(len(b))]
	return pol, pod
}

// pickHubs chooses 0-2 transshipment hubs that do not lengthen the route by
// more than 70%, ordered along the route; force raises the count.
func pickHubs(r *rand.Rand, pol, pod Port, force int) []Port {
	want := 0
	switch n := r.IntN(100); {
	case n >= 85:
		want = 2
	case n >= 50:
		want = 1
	}
	want = min(max(want, force), 2)
	if want == 0 {
		return nil
	}
	direct := distanceKM(pol, pod)
	var cands []Port
	for _, q := range ports {
		// A hub next door to either end is no transshipment worth making.
		if q.Hub && distanceKM(q, pol) > 800 && distanceKM(q, pod) > 800 {
			cands = append(cands, q)
		}
	}
	detour := func(q Port) float64 { return (distanceKM(pol, q) + distanceKM(q, pod)) / direct }
	r.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	slices.SortStableFunc(cands, func(a, b Port) int {
		switch da, db := detour(a), detour(b); {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return 0
	})
	var hubs []Port
	for _, q := range cands {
		if len(hubs) == want {
			break
		}
		near := slices.ContainsFunc(hubs, func(h Port) bool { return distanceKM(h, q) < 800 })
		if !near && (detour(q) <= 1.7 || len(hubs) < force) {
			hubs = append(hubs, q)
		}
	}
	slices.SortFunc(hubs, func(a, b Port) int {
		if distanceKM(pol, a) < distanceKM(pol, b) {
			return -1
		}
		return 1
	})
	return hubs
}

func tradeCode(a, b Port) string {
	pair := map[[2]Region]string{
		{Asia, Europe}: "AE", {Europe, Asia}: "AE",
		{Asia, NAmerica}: "TP", {NAmerica, Asia}: "TP",
		{Europe, NAmerica}: "TA", {NAmerica, Europe}: "TA",
		{Asia, Asia}: "IA", {Europe, Europe}: "EU",
		{Asia, LatAm}: "AL", {LatAm, Asia}: "AL",
		{Asia, Oceania}: "AU", {Oceania, Asia}: "AU",
		{Asia, Africa}: "AF", {Africa, Asia}: "AF",
	}
	if c, ok := pair[[2]Region{a.Region, b.Region}]; ok {
		return c
	}
	return "GX"
}
