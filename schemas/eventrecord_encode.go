package schemas

import (
	"time"
	"unicode/utf8"
)

// AppendEventRecord appends rec encoded exactly as json.Marshal encodes it,
// or reports false (having appended nothing) where it cannot promise that:
// then the caller uses json.Marshal. Its point is the event: json.Marshal
// validates and compacts a RawMessage again, where rec.Event must already
// be json.Marshal's own output for some value (valid, compact, escaped as
// it escapes), which is copied unchecked. A string field with a byte
// json.Marshal would escape (quotes, backslashes, controls, <, > and &,
// anything beyond ASCII) gives false, as does a time json.Marshal refuses.
func AppendEventRecord(dst []byte, rec *EventRecord) ([]byte, bool) {
	if len(rec.Event) == 0 || rec.EmittedAt.Year() < 0 || rec.EmittedAt.Year() > 9999 {
		return dst, false
	}
	for _, s := range [...]string{rec.TrackingID, rec.AccountID, rec.Env, rec.SCAC, rec.EventID, rec.ContentHash, rec.SourceID} {
		if !plainString(s) {
			return dst, false
		}
	}
	b := append(dst, `{"trackingId":"`...)
	b = append(b, rec.TrackingID...)
	b = append(b, `","accountId":"`...)
	b = append(b, rec.AccountID...)
	b = append(b, `","env":"`...)
	b = append(b, rec.Env...)
	b = append(b, `","scac":"`...)
	b = append(b, rec.SCAC...)
	b = append(b, `","eventId":"`...)
	b = append(b, rec.EventID...)
	b = append(b, `","contentHash":"`...)
	b = append(b, rec.ContentHash...)
	b = append(b, `","update":`...)
	if rec.Update {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	b = append(b, `,"event":`...)
	b = append(b, rec.Event...)
	b = append(b, `,"sourceId":"`...)
	b = append(b, rec.SourceID...)
	b = append(b, `","emittedAt":"`...)
	b = rec.EmittedAt.AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...), true
}

// plainString says json.Marshal writes s between quotes unchanged.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
