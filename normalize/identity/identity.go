// Package identity gives every normalised event a deterministic id and a
// content hash, so that re-polling, re-delivery and replays never create
// duplicates downstream, while a changed event (an estimate that moved) is
// still recognised as a change:
//
//	same event polled twice → same EventID, same ContentHash (drop it)
//	EST moved               → same EventID, new ContentHash  (update it)
//	a different event       → different EventID              (add it)
//
// Ids are UUID version 5 (SHA-1, RFC 9562) in the contrack Namespace, so they
// are valid 2.0.2 eventIDs (format uuid) and anyone holding the inputs can
// recompute them.
package identity

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/contrack/contrack/platform/jsonbuf"
	"github.com/contrack/contrack/schemas/dcsa"
)

// Namespace is the UUID v5 namespace of every contrack id. It is
// uuid.NewSHA1(uuid.NameSpaceURL, "https://contrack.dev/ns/event-identity"),
// fixed here as a literal: changing it changes every event id ever issued,
// which would duplicate every stored event.
var Namespace = uuid.MustParse("7d0fa65c-c4bb-5b78-88ef-871feb3a2b5b")

// Version prefixes every hashed key so a future change of the key layout can
// coexist with ids already issued.
const version = "v1"

// sep separates the fields of a hashed key. It is the ASCII unit separator,
// which never occurs in the codes and references hashed, so "AB"+"C" and
// "A"+"BC" give different keys.
const sep = "\x1f"

// EventID is the id of an event whose source gave it an id of its own:
// UUIDv5 over the carrier and that source id. Callers pass the source id in
// a canonical form (for UUIDs: lower case, as uuid.UUID.String gives), since
// "ABC" and "abc" give different ids.
func EventID(scac, sourceEventID string) string {
	return uuid.NewSHA1(Namespace, []byte(version+sep+"src"+sep+scac+sep+sourceEventID)).String()
}

// EventIDFromFields is the id of an event whose source gives no event id,
// derived from the fields that say which real-world event it is: carrier,
// eventType, the type code (equipment or transport), eventClassifierCode,
// equipmentReference, the UN/LOCODE of where it happened, the voyage and
// vessel IMO of its transport call, and — for actual (ACT) events only — the
// eventDateTime (as an instant, so the offset notation does not matter).
//
// Planned and estimated events leave the time out so that an estimate that
// moves keeps its id and replaces the old estimate downstream; a changed
// ContentHash flags the move. Two actual events of the same kind at the same
// place differ by time (a container gated in twice). eventCreatedDateTime is
// never used: it is metadata, and some sources fill it with the poll time.
func EventIDFromFields(e dcsa.Event, scac string) string {
	var b strings.Builder
	b.Grow(160)
	b.WriteString(version + sep + "fields")
	for _, f := range [...]string{
		scac,
		e.EventType,
		e.EquipmentEventTypeCode + e.TransportEventTypeCode + e.TNT3.Code(),
		e.EventClassifierCode,
		e.EquipmentReference,
		placeCode(e),
		voyage(e.TransportCall),
		vesselIMO(e.TransportCall),
	} {
		b.WriteString(sep)
		b.WriteString(f)
	}
	b.WriteString(sep)
	if e.EventClassifierCode == dcsa.ClassifierActual {
		b.WriteString(instant(e.EventDateTime))
	}
	return uuid.NewSHA1(Namespace, []byte(b.String())).String()
}

// TransportCallID derives the required transportCallID for a source that has
// none: UUIDv5 over the carrier and what identifies a call — voyage, vessel,
// place (UN/LOCODE and facility), sequence number and mode. Every event of
// the same call gets the same id, which is all the field is for.
func TransportCallID(scac string, tc dcsa.TransportCall) string {
	seq := ""
	if tc.TransportCallSequenceNumber != nil {
		seq = strconv.Itoa(*tc.TransportCallSequenceNumber)
	}
	un, facility := tc.UNLocationCode, tc.FacilityCode
	if l := tc.Location; l != nil {
		if un == "" {
			un = l.UNLocationCode
		}
		if facility == "" {
			facility = l.FacilityCode
		}
	}
	key := strings.Join([]string{version, "call", scac, voyage(&tc), vesselIMO(&tc), un, facility, seq, tc.ModeOfTransport}, sep)
	return uuid.NewSHA1(Namespace, []byte(key)).String()
}

// ContentHash is a hex SHA-256 of everything in e except eventID and
// eventCreatedDateTime (metadata that may differ between two deliveries of
// the same event). It hashes the event's JSON encoding, so a field added to
// dcsa.Event is covered without touching this function; an absent optional
// field does not change the hash, so adding a field keeps old hashes valid.
func ContentHash(e dcsa.Event) string {
	e.EventID, e.EventCreatedDateTime = "", ""
	// Into a reused buffer: the encoding is garbage once hashed.
	enc := jsonbuf.Get()
	defer jsonbuf.Put(enc)
	raw, err := enc.Marshal(&e)
	if err != nil {
		// dcsa.Event holds only strings, ints and slices of them: Marshal
		// cannot fail. Hash the error text rather than panic.
		raw = []byte("unmarshalable: " + err.Error())
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// placeCode is the UN/LOCODE of where the event happened: the event location
// for equipment events, else the transport call's location.
func placeCode(e dcsa.Event) string {
	if l := e.EventLocation; l != nil && l.UNLocationCode != "" {
		return l.UNLocationCode
	}
	if tc := e.TransportCall; tc != nil {
		if l := tc.Location; l != nil && l.UNLocationCode != "" {
			return l.UNLocationCode
		}
		return tc.UNLocationCode
	}
	return ""
}

// voyage is the export voyage under whichever of its three 2.0.2 names the
// event carries.
func voyage(tc *dcsa.TransportCall) string {
	if tc == nil {
		return ""
	}
	for _, v := range [...]string{tc.CarrierExportVoyageNumber, tc.ExportVoyageNumber, tc.CarrierVoyageNumber} {
		if v != "" {
			return v
		}
	}
	return ""
}

func vesselIMO(tc *dcsa.TransportCall) string {
	if tc == nil || tc.Vessel == nil {
		return ""
	}
	return tc.Vessel.VesselIMONumber
}

// instant renders an RFC 3339 time in UTC so "14:00+01:00" and "13:00Z" give
// the same key; unparsable text (which parsers never emit) is used as is.
func instant(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339Nano)
}
