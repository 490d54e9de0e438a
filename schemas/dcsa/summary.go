package dcsa

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/contrack/contrack/platform/jsonvalid"
)

// DecodeSummary decodes an event's Summary as json.Unmarshal does into a
// zero Summary: the same fields, and an error exactly when Unmarshal gives
// one. Events as contrack writes them (plain strings, each member once)
// take a fast path that reads the few members a Summary has and steps
// over the rest; anything else (escapes, nulls, duplicate members, other
// spellings of a member's name, errors) goes to json.Unmarshal.
func DecodeSummary(raw []byte, s *Summary) error {
	if !jsonvalid.Valid(raw) {
		return json.Unmarshal(raw, s) // its error
	}
	return DecodeValidSummary(raw, s)
}

// DecodeValidSummary is DecodeSummary for raw already known to be valid
// JSON (a record schemas.DecodeEventRecord decoded).
func DecodeValidSummary(raw []byte, s *Summary) error {
	*s = Summary{}
	sc := summaryScanner{data: raw}
	if sc.event(s) {
		return nil
	}
	*s = Summary{}
	return json.Unmarshal(raw, s)
}

// summaryScanner reads valid JSON; its methods report false on anything
// the fast path leaves to json.Unmarshal.
type summaryScanner struct {
	data []byte
	i    int
}

// The members a Summary reads, and in which of its places.
var (
	summaryKeys = []string{"eventCreatedDateTime", "eventType", "eventClassifierCode", "eventDateTime",
		"equipmentEventTypeCode", "equipmentReference", "emptyIndicatorCode", "transportEventTypeCode",
		"eventLocation", "transportCall", "tnt3"}
	locationKeys      = []string{"UNLocationCode"}
	tnt3Keys          = []string{"shipmentEventTypeCode", "iotEventTypeCode", "reeferEventTypeCode"}
	transportCallKeys = []string{"UNLocationCode", "location", "modeOfTransport"}
)

func (s *Summary) stringField(k int) *string {
	return [...]*string{&s.EventCreatedDateTime, &s.EventType, &s.EventClassifierCode, &s.EventDateTime,
		&s.EquipmentEventTypeCode, &s.EquipmentReference, &s.EmptyIndicatorCode, &s.TransportEventTypeCode}[k]
}

func (sc *summaryScanner) event(s *Summary) bool {
	return sc.object(summaryKeys, func(k int) bool {
		switch summaryKeys[k] {
		case "eventLocation":
			s.EventLocation = &SummaryLocation{}
			return sc.location(s.EventLocation)
		case "transportCall":
			tc := &SummaryTransportCall{}
			s.TransportCall = tc
			return sc.object(transportCallKeys, func(k int) bool {
				switch k {
				case 0:
					return sc.str(&tc.UNLocationCode)
				case 2:
					return sc.str(&tc.ModeOfTransport)
				}
				tc.Location = &SummaryLocation{}
				return sc.location(tc.Location)
			})
		case "tnt3":
			t := &SummaryTNT3{}
			s.TNT3 = t
			return sc.object(tnt3Keys, func(k int) bool {
				return sc.str([...]*string{&t.ShipmentEventTypeCode, &t.IotEventTypeCode, &t.ReeferEventTypeCode}[k])
			})
		default:
			return sc.str(s.stringField(k))
		}
	})
}

func (sc *summaryScanner) location(l *SummaryLocation) bool {
	return sc.object(locationKeys, func(int) bool { return sc.str(&l.UNLocationCode) })
}

func (sc *summaryScanner) skipSpace() {
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// object reads an object whose members named keys go to member (with the
// key's index) and steps over the others. A member named twice, or a name
// matching a key only without regard to case (which Unmarshal would take),
// is left to Unmarshal.
func (sc *summaryScanner) object(keys []string, member func(k int) bool) bool {
	sc.skipSpace()
	if sc.i >= len(sc.data) || sc.data[sc.i] != '{' {
		return false // null, or not an object: Unmarshal decides
	}
	sc.i++
	var seen uint32
	sc.skipSpace()
	if sc.data[sc.i] == '}' {
		sc.i++
		return true
	}
	for {
		sc.skipSpace()
		name, ok := sc.plainString()
		if !ok {
			return false
		}
		sc.skipSpace()
		sc.i++ // the colon (valid JSON)
		sc.skipSpace()
		k := -1
		for j, key := range keys {
			if string(name) == key {
				k = j
				break
			}
			if strings.EqualFold(string(name), key) {
				return false
			}
		}
		if k < 0 {
			sc.skipValue()
		} else {
			if seen&(1<<k) != 0 {
				return false
			}
			seen |= 1 << k
			if !member(k) {
				return false
			}
		}
		sc.skipSpace()
		if sc.data[sc.i] == '}' {
			sc.i++
			return true
		}
		sc.i++ // the comma
	}
}

// plainString reads a string without escapes and returns its raw bytes,
// quotes excluded (valid JSON has no control characters in strings).
func (sc *summaryScanner) plainString() ([]byte, bool) {
	if sc.i >= len(sc.data) || sc.data[sc.i] != '"' {
		return nil, false
	}
	start := sc.i + 1
	for i := start; i < len(sc.data); i++ {
		switch sc.data[i] {
		case '"':
			sc.i = i + 1
			return sc.data[start:i], true
		case '\\':
			return nil, false
		}
	}
	return nil, false
}

// str reads a string value into dst; Unmarshal replaces invalid UTF-8, so
// such strings are its to decode.
func (sc *summaryScanner) str(dst *string) bool {
	b, ok := sc.plainString()
	if !ok || !utf8.Valid(b) {
		return false
	}
	*dst = string(b)
	return true
}

// skipValue steps over one valid JSON value.
func (sc *summaryScanner) skipValue() {
	depth, inString := 0, false
	for ; sc.i < len(sc.data); sc.i++ {
		c := sc.data[sc.i]
		if inString {
			switch c {
			case '\\':
				sc.i++
			case '"':
				inString = false
				if depth == 0 {
					sc.i++
					return
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // the end of the enclosing object: a number or literal ended
			}
			depth--
			if depth == 0 {
				sc.i++
				return
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return
			}
		}
	}
}
