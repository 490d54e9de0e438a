package iftsta

import (
	"errors"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/schemas/dcsa"
)

// dtm is one DTM segment, parsed only when an event uses it: a malformed
// date nobody reads does not fail the interchange.
type dtm struct {
	qual, value, format string
	num                 int
	// zone is the offset carried by a DTM with format 406 right after this
	// one ("+0100"), the way several carriers send local time; "" if none.
	zone string
}

// Event-time qualifiers (UN/EDIFACT 2005) and the DCSA classifier each gives.
// A DTM with any other qualifier never dates an event.
var eventTimeQualifiers = map[string]string{
	"7":   dcsa.ClassifierActual,    // effective from date/time: most carriers' "event happened at"
	"35":  dcsa.ClassifierActual,    // delivery date/time, actual
	"78":  dcsa.ClassifierActual,    // event date/time/period, actual
	"136": dcsa.ClassifierActual,    // transport means departure date/time, actual (older lists)
	"178": dcsa.ClassifierActual,    // transport means arrival date/time, actual
	"186": dcsa.ClassifierActual,    // transport means departure date/time, actual
	"334": dcsa.ClassifierActual,    // status change date/time
	"17":  dcsa.ClassifierEstimated, // delivery date/time, estimated
	"132": dcsa.ClassifierEstimated, // transport means arrival date/time, estimated
	"133": dcsa.ClassifierEstimated, // transport means departure date/time, estimated
	"191": dcsa.ClassifierEstimated, // delivery date/time, expected
	"189": dcsa.ClassifierPlanned,   // transport means departure date/time, scheduled
	"232": dcsa.ClassifierPlanned,   // transport means arrival date/time, scheduled
}

// Qualifiers that date the departure or the arrival of a leg, in order of
// preference, for statuses whose own group carries no event time and must
// borrow one from their TDT group.
var (
	departureQualifiers = []string{"186", "136", "133", "189"}
	arrivalQualifiers   = []string{"178", "132", "232"}
)

var errBadDate = errors.New("bad date")

// parseDTM turns a DTM value into an instant. Formats: 102 CCYYMMDD,
// 203 CCYYMMDDHHMM, 204 CCYYMMDDHHMMSS, 205 CCYYMMDDHHMM±HHMM,
// 303 CCYYMMDDHHMM+zone, 304 CCYYMMDDHHMMSS+zone, and the two-digit-year
// 101/201/202 (20YY). An empty format is inferred from the length (8, 12 or
// 14 digits). 203/204 may carry an offset suffix ("+01:00", "+0100", "Z"),
// which wins over a separate 406 zone; with neither the time is taken as UTC:
// IFTSTA has no other way to say which zone a time is in.
func parseDTM(value, format, zone string) (time.Time, error) {
	digits := 0
	for digits < len(value) && value[digits] >= '0' && value[digits] <= '9' {
		digits++
	}
	if format == "" {
		switch digits {
		case 8:
			format = "102"
		case 12:
			format = "203"
		case 14:
			format = "204"
		default:
			return time.Time{}, errBadDate
		}
	}
	var n int         // digits of the date-time part
	var twoDigit bool // YY instead of CCYY
	zoneRequired := false
	switch format {
	case "102":
		n = 8
	case "203":
		n = 12
	case "204":
		n = 14
	case "205", "303":
		n, zoneRequired = 12, true
	case "304":
		n, zoneRequired = 14, true
	case "101":
		n, twoDigit = 6, true
	case "201":
		n, twoDigit = 10, true
	case "202":
		n, twoDigit = 12, true
	default:
		return time.Time{}, errUnsupportedFormat
	}
	if digits < n {
		return time.Time{}, errBadDate
	}
	suffix := value[n:]
	v := value[:n]
	if twoDigit {
		v = "20" + v
	}
	year, _ := normalize.Digits(v[0:4])
	month, _ := normalize.Digits(v[4:6])
	day, _ := normalize.Digits(v[6:8])
	var hour, minute, sec int
	if len(v) >= 12 {
		hour, _ = normalize.Digits(v[8:10])
		minute, _ = normalize.Digits(v[10:12])
	}
	if len(v) >= 14 {
		sec, _ = normalize.Digits(v[12:14])
	}
	if month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, errBadDate
	}
	if n == 8 && suffix != "" { // a date carries no zone
		return time.Time{}, errBadDate
	}
	if suffix == "" {
		if zoneRequired {
			return time.Time{}, errBadDate
		}
		suffix = zone
	}
	loc := time.UTC
	if suffix != "" {
		off, ok := parseOffset(suffix)
		if !ok {
			return time.Time{}, errBadDate
		}
		if off != 0 {
			loc = normalize.FixedZone(off)
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, loc)
	if t.Day() != day { // 31 April and the like roll over
		return time.Time{}, errBadDate
	}
	return t, nil
}

var errUnsupportedFormat = errors.New("unsupported format")

// parseOffset reads a UTC offset: "Z", "UTC", "GMT", "±HH", "±HHMM" or
// "±HH:MM" (what 205, 303/304 and format 406 carry). Named zones such as "CET"
// are refused: their abbreviations are ambiguous.
func parseOffset(s string) (int, bool) {
	switch s {
	case "Z", "UTC", "GMT":
		return 0, true
	}
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	h, ok := normalize.Digits(s[1:3])
	if !ok {
		return 0, false
	}
	m := 0
	switch rest := s[3:]; len(rest) {
	case 0:
	case 2:
		if m, ok = normalize.Digits(rest); !ok {
			return 0, false
		}
	case 3:
		if rest[0] != ':' {
			return 0, false
		}
		if m, ok = normalize.Digits(rest[1:]); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	if h > 14 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// formatTime writes RFC 3339 with the offset the source gave (Z for UTC).
func formatTime(t time.Time) string { return t.Format(time.RFC3339) }
