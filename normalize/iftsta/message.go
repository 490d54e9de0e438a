package iftsta

import (
	"strings"
	"unicode/utf8"

	"github.com/contrack/contrack/normalize/validate"
)

// The message model. IFTSTA nests statuses two ways and this model holds
// both:
//
//   - D.99B-D.01B: CNI (consignment) → STS (status) → RFF, DTM, LOC, TDT
//     group (TDT → LOC, DTM), EQD (the containers the status concerns).
//   - D.14A and later: EQD (one container) → STS → RFF, DTM, LOC, TDT group.
//
// Segments attach to the innermost open group; LOC, DTM and RFF after a TDT
// attach to that TDT until the next STS, EQD, CNI or TDT.

type reference struct{ qual, value string }

type place struct {
	qual     string
	locode   string // a well-formed UN/LOCODE, else ""
	name     string
	facility string // SMDG terminal code (related location one, agency 306)
}

type transport struct {
	voyage, mode  string
	imo, callSign string
	name          string
	places        []place
	dates         []*dtm
	refs          []reference
}

// scope is what a group (message, consignment, equipment, status) says.
type scope struct {
	refs   []reference
	places []place
	dates  []*dtm
	tdts   []*transport
}

type equipment struct {
	id, isoCode, fullEmpty string
}

// equipGroup is an EQD-headed group (D.14A and later).
type equipGroup struct {
	equipment
	scope
}

type status struct {
	code string
	num  int // the STS segment's number, for paths
	// detail holds the status group's own segments. In an EQD-headed group,
	// consecutive STS segments share one detail: D.14A puts up to nine STS
	// right after the EQD and the dates and places after all of them.
	detail    *scope
	equipment []equipment // EQDs of the status group (CNI layout)
	group     *equipGroup // EQD-headed layout: the group the status belongs to
	cons      *scope      // the consignment (CNI) it belongs to, if any
}

type message struct {
	ref      string
	created  *dtm // DTM 137 of the message header
	top      scope
	statuses []*status

	// parse state
	cons    *scope
	group   *equipGroup
	status  *status
	tdt     *transport
	target  *scope
	lastDTM *dtm
	prevSTS bool
}

func newMessage(ref string) *message {
	m := &message{ref: ref}
	m.target = &m.top
	return m
}

// add files one segment of the message body.
func (m *message) add(s *segment) error {
	wasSTS := m.prevSTS
	m.prevSTS = false
	if s.tag != "DTM" {
		m.lastDTM = nil
	}
	switch s.tag {
	case "CNI":
		m.cons = &scope{}
		m.group, m.status, m.tdt = nil, nil, nil
		m.target = m.cons
	case "EQD":
		eq, err := readEQD(s)
		if err != nil {
			return err
		}
		if m.status != nil && m.status.group == nil {
			m.status.equipment = append(m.status.equipment, eq)
			m.tdt = nil
			return nil
		}
		m.group = &equipGroup{equipment: eq}
		m.status, m.tdt = nil, nil
		m.target = &m.group.scope
	case "STS":
		st := &status{code: strings.TrimSpace(s.get(1, 0)), num: s.num, group: m.group, cons: m.cons}
		if m.group != nil && wasSTS && m.status != nil {
			st.detail = m.status.detail
		} else {
			st.detail = &scope{}
		}
		m.statuses = append(m.statuses, st)
		m.status, m.tdt = st, nil
		m.target = st.detail
		m.prevSTS = true
	case "TDT":
		t := readTDT(s)
		m.target.tdts = append(m.target.tdts, t)
		m.tdt = t
	case "LOC":
		p := readLOC(s)
		if m.tdt != nil {
			m.tdt.places = append(m.tdt.places, p)
		} else {
			m.target.places = append(m.target.places, p)
		}
	case "DTM":
		x, isZone, err := readDTM(s)
		if err != nil {
			return err
		}
		if isZone {
			if m.lastDTM != nil && m.lastDTM.zone == "" {
				m.lastDTM.zone = x.value
			}
			m.lastDTM = nil
			return nil
		}
		if x.qual == "137" && m.created == nil && m.target == &m.top {
			m.created = x
		}
		if m.tdt != nil {
			m.tdt.dates = append(m.tdt.dates, x)
		} else {
			m.target.dates = append(m.target.dates, x)
		}
		m.lastDTM = x
	case "RFF":
		r := reference{qual: s.get(0, 0), value: strings.TrimSpace(s.get(0, 1))}
		if r.value == "" {
			return nil
		}
		if m.tdt != nil {
			m.tdt.refs = append(m.tdt.refs, r)
		} else {
			m.target.refs = append(m.target.refs, r)
		}
	}
	// BGM, NAD, FTX, CNT, MEA, SEL, DIM, TSR, GID, PCI, DOC... carry nothing
	// an equipment or transport event has a field for.
	return nil
}

// readEQD reads a container: EQD+CN+id+size-type+supplier+status+full/empty.
// Other equipment (chassis, trailers) yields an equipment without id.
func readEQD(s *segment) (equipment, error) {
	var eq equipment
	if q := s.get(0, 0); q != "CN" && q != "" {
		return eq, nil
	}
	id := strings.TrimSpace(s.get(1, 0))
	if len(id) > validate.MaxEquipmentReference {
		return eq, parseErr(s.path(), "equipment identification "+clip(id)+" is longer than 15 characters")
	}
	eq.id = strings.ToUpper(id)
	if iso := strings.TrimSpace(s.get(2, 0)); len(iso) == 4 && isAlnumString(iso) {
		eq.isoCode = strings.ToUpper(iso)
	}
	// 8169 full/empty indicator is the sixth element. The fourth (8077
	// supplier) also uses 4 and 5, for other things: never read it.
	switch s.get(5, 0) {
	case "4":
		eq.fullEmpty = empty
	case "5":
		eq.fullEmpty = laden
	}
	return eq, nil
}

// readTDT reads TDT+stage+voyage+mode+means+carrier+direction+excess+
// id:list:agency:name:nationality. The vessel id is an IMO number when the
// code list says so (1131 146, or agency 11 Lloyd's) or, unqualified, when it
// is seven digits with a valid IMO check digit; 1131 103 marks a call sign.
func readTDT(s *segment) *transport {
	t := &transport{voyage: strings.TrimSpace(s.get(1, 0)), mode: modeFromTDT(s.get(2, 0))}
	if len(t.voyage) > validate.MaxVoyageNumber {
		t.voyage = ""
	}
	id := strings.TrimSpace(s.get(7, 0))
	list, agency := s.get(7, 1), s.get(7, 2)
	switch {
	case list == "103":
		if len(id) <= validate.MaxVesselCallSignNumber {
			t.callSign = id
		}
	case list == "146" || agency == "11" || list == "IMO":
		id = strings.TrimPrefix(id, "IMO")
		if validate.IsIMONumber(id) {
			t.imo = id
		}
	case validIMO(id):
		t.imo = id
	}
	t.name = validate.Truncate(latin1(strings.TrimSpace(s.get(7, 3))), validate.MaxVesselName)
	return t
}

// readLOC reads LOC+qualifier+locode:list:agency:name+terminal:list:agency:name.
func readLOC(s *segment) place {
	p := place{qual: s.get(0, 0), name: validate.Truncate(latin1(strings.TrimSpace(s.get(1, 3))), validate.MaxLocationName)}
	if code := strings.TrimSpace(s.get(1, 0)); validate.IsUNLocationCode(code) {
		p.locode = code
	}
	if ag := s.get(2, 2); ag == "306" || ag == "SMDG" {
		if f := strings.TrimSpace(s.get(2, 0)); f != "" && len(f) <= validate.MaxFacilityCode && p.locode != "" {
			p.facility = f
		}
	}
	return p
}

// readDTM reads DTM+qualifier:value:format. A DTM with format 406 (ZHHMM)
// is a zone for the DTM before it; isZone reports that.
func readDTM(s *segment) (x *dtm, isZone bool, err error) {
	x = &dtm{num: s.num, qual: s.get(0, 0), value: strings.TrimSpace(s.get(0, 1)), format: s.get(0, 2)}
	// A "+" offset must be released when "+" is the element separator.
	// Senders that forget split the composite in two
	// (DTM+7:202603011420+0100:205): join it back.
	if len(s.elems) == 2 && len(s.elems[0]) == 2 && s.elem == '+' {
		x.value += "+" + s.get(1, 0)
		x.format = s.get(1, 1)
	}
	if x.format != "406" {
		return x, false, nil
	}
	if _, ok := parseOffset(x.value); !ok {
		return nil, false, parseErr(s.path(), "time zone "+clip(x.value)+" is not ±HHMM")
	}
	return x, true, nil
}

// validIMO checks the IMO number check digit: the first six digits weighted
// 7..2, summed, modulo 10.
func validIMO(s string) bool {
	if !validate.IsIMONumber(s) {
		return false
	}
	sum := 0
	for i := 0; i < 6; i++ {
		sum += int(s[i]-'0') * (7 - i)
	}
	return sum%10 == int(s[6]-'0')
}

func isAlnumString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// latin1 makes free text valid UTF-8. Text that is not UTF-8 is read as
// ISO 8859-1, the UNOC character set European carriers declare in UNB; any
// byte is a Latin-1 character, so nothing is lost to a replacement mark.
func latin1(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}
