package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/contrack/contrack/platform/jsonvalid"
)

// DecodeEventRecord decodes an event record as json.Unmarshal does into a
// zero EventRecord: same fields, and an error exactly when Unmarshal gives
// one. rec is overwritten whole, so fields absent from data are zero.
//
// Records as json.Marshal writes them take a fast path that validates the
// event once and copies it, where Unmarshal validates the whole record and
// then scans it again. Anything else (escapes, other key spellings, nulls,
// duplicate or unknown keys, errors) goes to json.Unmarshal, the reference.
func DecodeEventRecord(data []byte, rec *EventRecord) error {
	*rec = EventRecord{}
	if decodeSimpleRecord(data, rec) {
		return nil
	}
	*rec = EventRecord{} // the fast path may have set fields before giving up
	if err := json.Unmarshal(data, rec); err != nil {
		return fmt.Errorf("schemas: decode event record: %w", err)
	}
	return nil
}

// maxEventDepth bounds the event's nesting on the fast path: deeper events
// go to json.Unmarshal, which alone knows its limit (10000 levels counting
// the record's own). DCSA events nest about 4 levels.
const maxEventDepth = 100

// decodeSimpleRecord decodes data into rec when it is a record of the
// simple shape, and reports whether it was. When false, rec may hold part
// of data and the caller must decode data otherwise.
func decodeSimpleRecord(data []byte, rec *EventRecord) bool {
	s := recordScanner{data: data}
	// Only the exact spellings: Unmarshal matches others case-insensitively
	// (and ignores unknown keys), which is not worth redoing here.
	return s.record(func(key []byte) (uint16, bool) {
		switch string(key) {
		case "trackingId":
			return 1 << 0, s.str(&rec.TrackingID)
		case "accountId":
			return 1 << 1, s.str(&rec.AccountID)
		case "env":
			return 1 << 2, s.str(&rec.Env)
		case "scac":
			return 1 << 3, s.str(&rec.SCAC)
		case "eventId":
			return 1 << 4, s.str(&rec.EventID)
		case "contentHash":
			return 1 << 5, s.str(&rec.ContentHash)
		case "update":
			return 1 << 6, s.boolean(&rec.Update)
		case "event":
			return 1 << 7, s.object(&rec.Event)
		case "sourceId":
			return 1 << 8, s.str(&rec.SourceID)
		case "emittedAt":
			return 1 << 9, s.timestamp(&rec.EmittedAt)
		}
		return 0, false
	})
}

// record reads data as one object and nothing after it, handing each
// member to member once its key and colon are read. member reads the
// value and returns the key's bit (one per key) and whether it could; a
// key seen twice (Unmarshal keeps the last: left to it), or anything
// outside the simple shape, reports false.
func (s *recordScanner) record(member func(key []byte) (bit uint16, ok bool)) bool {
	if !s.consume('{') {
		return false
	}
	if s.consume('}') {
		return s.atEnd()
	}
	var seen uint16
	for {
		s.skipSpace()
		key, ok := s.plainString()
		if !ok || !s.consume(':') {
			return false
		}
		s.skipSpace()
		bit, ok := member(key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if s.consume('}') {
			return s.atEnd()
		}
		if !s.consume(',') {
			return false
		}
	}
}

// recordScanner reads a record from data[i:]. Its methods report false on
// anything outside the simple shape, valid JSON or not.
type recordScanner struct {
	data []byte
	i    int
}

func (s *recordScanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// consume skips white space and then c.
func (s *recordScanner) consume(c byte) bool {
	s.skipSpace()
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// atEnd reports whether only white space is left: Unmarshal rejects
// anything after the value.
func (s *recordScanner) atEnd() bool {
	s.skipSpace()
	return s.i == len(s.data)
}

// plainString reads a string without escapes or control characters and
// returns its raw bytes, quotes excluded. Such a string decodes to its raw
// bytes when they are valid UTF-8.
func (s *recordScanner) plainString() ([]byte, bool) {
	if s.i >= len(s.data) || s.data[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.i = i + 1
			return s.data[start:i], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

func (s *recordScanner) str(dst *string) bool {
	b, ok := s.plainString()
	if !ok || !utf8.Valid(b) { // Unmarshal replaces invalid UTF-8
		return false
	}
	*dst = string(b)
	return true
}

func (s *recordScanner) boolean(dst *bool) bool {
	switch rest := s.data[s.i:]; {
	case bytes.HasPrefix(rest, []byte("true")):
		*dst, s.i = true, s.i+len("true")
	case bytes.HasPrefix(rest, []byte("false")):
		*dst, s.i = false, s.i+len("false")
	default:
		return false
	}
	return true
}

// timestamp hands the quoted string to Time.UnmarshalJSON, as Unmarshal does.
func (s *recordScanner) timestamp(dst *time.Time) bool {
	start := s.i
	if _, ok := s.plainString(); !ok {
		return false
	}
	return dst.UnmarshalJSON(s.data[start:s.i]) == nil
}

// object copies an object value, checked as json.Valid would in the same
// pass that finds where it ends.
func (s *recordScanner) object(dst *json.RawMessage) bool {
	n, ok := jsonvalid.Object(s.data[s.i:], maxEventDepth)
	if !ok {
		return false
	}
	*dst = append(json.RawMessage(nil), s.data[s.i:s.i+n]...) // as RawMessage.UnmarshalJSON copies
	s.i += n
	return true
}

// int reads a small non-negative integer written plainly (no sign,
// fraction, exponent or leading zero; at most nine digits), as Unmarshal
// decodes it into an int; anything else is left to Unmarshal.
func (s *recordScanner) int(dst *int) bool {
	start, n := s.i, 0
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' && s.i-start < 9 {
		n = n*10 + int(s.data[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || (digits > 1 && s.data[start] == '0') || s.i == len(s.data) {
		return false
	}
	switch s.data[s.i] {
	case ' ', '\t', '\n', '\r', ',', '}':
		*dst = n
		return true
	}
	return false
}
