package schemas

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"
)

// DecodeCarrierRaw decodes a raw envelope as json.Unmarshal does into a zero
// CarrierRaw: same fields, and json.Unmarshal's error exactly when it gives
// one. raw is overwritten whole.
//
// Envelopes as json.Marshal writes them take a fast path that reads each
// member once and decodes the payload's base64 straight into its bytes,
// where Unmarshal validates the whole envelope (the payload is most of it)
// before scanning it again. Anything else (escapes, other key spellings,
// nulls, duplicate or unknown keys, errors) goes to json.Unmarshal.
func DecodeCarrierRaw(data []byte, raw *CarrierRaw) error {
	*raw = CarrierRaw{}
	if decodeSimpleCarrierRaw(data, raw) {
		return nil
	}
	*raw = CarrierRaw{} // the fast path may have set fields before giving up
	return json.Unmarshal(data, raw)
}

func decodeSimpleCarrierRaw(data []byte, raw *CarrierRaw) bool {
	s := recordScanner{data: data}
	// Only the exact spellings (see decodeSimpleRecord).
	return s.record(func(key []byte) (uint16, bool) {
		switch string(key) {
		case "id":
			return 1 << 0, s.str(&raw.ID)
		case "format":
			return 1 << 1, s.str(&raw.Format)
		case "scac":
			return 1 << 2, s.str(&raw.SCAC)
		case "env":
			return 1 << 3, s.str(&raw.Env)
		case "accountId":
			return 1 << 4, s.str(&raw.AccountID)
		case "trackingId":
			return 1 << 5, s.str(&raw.TrackingID)
		case "requestId":
			return 1 << 6, s.str(&raw.RequestID)
		case "receivedAt":
			return 1 << 7, s.timestamp(&raw.ReceivedAt)
		case "payload":
			return 1 << 8, s.base64(&raw.Payload)
		case "carrierKeyId":
			return 1 << 9, s.str(&raw.CarrierKeyID)
		case "parts":
			return 1 << 10, s.int(&raw.Parts)
		}
		return 0, false
	})
}

// base64 reads a string of standard base64 into dst as Unmarshal decodes a
// []byte (an empty string is an empty, non-nil slice).
func (s *recordScanner) base64(dst *[]byte) bool {
	b, ok := s.plainString()
	if !ok {
		return false
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(out, b)
	if err != nil {
		return false
	}
	*dst = out[:n]
	return true
}

// AppendCarrierRaw appends raw encoded exactly as json.Marshal encodes it,
// or reports false (having appended nothing) where it cannot promise that
// (a string field json.Marshal would escape, a time it refuses): then the
// caller uses json.Marshal.
func AppendCarrierRaw(dst []byte, raw *CarrierRaw) ([]byte, bool) {
	if raw.ReceivedAt.Year() < 0 || raw.ReceivedAt.Year() > 9999 {
		return dst, false
	}
	for _, s := range [...]string{raw.ID, raw.Format, raw.SCAC, raw.Env, raw.AccountID, raw.TrackingID, raw.RequestID, raw.CarrierKeyID} {
		if !plainString(s) {
			return dst, false
		}
	}
	b := append(dst, `{"id":"`...)
	b = append(b, raw.ID...)
	b = append(b, `","format":"`...)
	b = append(b, raw.Format...)
	b = append(b, `","scac":"`...)
	b = append(b, raw.SCAC...)
	b = append(b, `","env":"`...)
	b = append(b, raw.Env...)
	b = append(b, '"')
	for _, f := range [...]struct{ key, v string }{{"accountId", raw.AccountID}, {"trackingId", raw.TrackingID}, {"requestId", raw.RequestID}} {
		if f.v != "" { // omitempty
			b = append(b, `,"`...)
			b = append(b, f.key...)
			b = append(b, `":"`...)
			b = append(b, f.v...)
			b = append(b, '"')
		}
	}
	b = append(b, `,"receivedAt":"`...)
	b = raw.ReceivedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","payload":`...)
	if raw.Payload == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, raw.Payload)
		b = append(b, '"')
	}
	if raw.CarrierKeyID != "" {
		b = append(b, `,"carrierKeyId":"`...)
		b = append(b, raw.CarrierKeyID...)
		b = append(b, '"')
	}
	if raw.Parts != 0 {
		b = append(b, `,"parts":`...)
		b = strconv.AppendInt(b, int64(raw.Parts), 10)
	}
	return append(b, '}'), true
}

// EncodeCarrierRaw is json.Marshal(raw), through AppendCarrierRaw where it
// can: the payload goes to base64 once, with no reflection.
func EncodeCarrierRaw(raw *CarrierRaw) ([]byte, error) {
	size := 160 + len(raw.ID) + len(raw.AccountID) + len(raw.TrackingID) + len(raw.RequestID) + len(raw.CarrierKeyID) +
		base64.StdEncoding.EncodedLen(len(raw.Payload))
	if b, ok := AppendCarrierRaw(make([]byte, 0, size), raw); ok {
		return b, nil
	}
	return json.Marshal(raw)
}
