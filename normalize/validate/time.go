package validate

import (
	"fmt"
	"time"
)

// Timestamp parses an ISO 8601 / RFC 3339 date-time as DCSA sends it and
// returns its canonical form: RFC 3339 with the source's own UTC offset
// (eventDateTime is local time, so the offset is information), "Z" for a zero
// offset, and fractional seconds only when non-zero.
//
// Accepted: "2021-01-09T14:12:56+01:00", "…Z", "…z", fractional seconds of
// up to 9 digits, a space instead of "T" (RFC 3339 §5.6 note), and an offset
// without colon ("+0100"). Rejected with a reason: anything without a zone —
// a local time without offset cannot be placed on the time line, and
// guessing the zone would shift events by hours.
func Timestamp(s string) (string, time.Time, error) {
	t, err := parseTimestamp(s)
	if err != nil {
		return "", time.Time{}, err
	}
	if canonical(s) {
		return s, t, nil // the common case: saves formatting and a copy
	}
	return t.Format(time.RFC3339Nano), t, nil
}

// canonical reports whether s, which parseTimestamp accepted, is already in
// the form Format(time.RFC3339Nano) would give it.
func canonical(s string) bool {
	if s[10] != 'T' {
		return false
	}
	i := 19
	if s[i] == ',' {
		return false
	}
	if s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if s[i-1] == '0' {
			return false // Format drops trailing zeros
		}
	}
	switch z := s[i:]; {
	case z == "Z":
		return true
	case len(z) != 6 || z[3] != ':':
		return false // "z" or "+0100"
	default:
		return z[1:] != "00:00" // Format writes a zero offset as Z
	}
}

func parseTimestamp(s string) (time.Time, error) {
	bad := func(why string) (time.Time, error) {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 date-time: %s", clip(s), why)
	}
	if len(s) < 19 {
		if len(s) == 10 && digitsAt(s, 0, 4) && s[4] == '-' {
			return bad("a date without time and UTC offset")
		}
		return bad("too short")
	}
	if !digitsAt(s, 0, 4) || s[4] != '-' || !digitsAt(s, 5, 2) || s[7] != '-' || !digitsAt(s, 8, 2) {
		return bad("want YYYY-MM-DD")
	}
	if c := s[10]; c != 'T' && c != 't' && c != ' ' {
		return bad("want T between date and time")
	}
	if !digitsAt(s, 11, 2) || s[13] != ':' || !digitsAt(s, 14, 2) || s[16] != ':' || !digitsAt(s, 17, 2) {
		return bad("want hh:mm:ss")
	}
	year, month, day := num(s, 0, 4), num(s, 5, 2), num(s, 8, 2)
	hour, minute, sec := num(s, 11, 2), num(s, 14, 2), num(s, 17, 2)
	i, nsec := 19, 0
	if i < len(s) && (s[i] == '.' || s[i] == ',') {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n := i - start
		if n == 0 || n > 9 {
			return bad("want 1 to 9 digits of fractional seconds")
		}
		nsec = num(s, start, n)
		for ; n < 9; n++ {
			nsec *= 10
		}
	}
	if i == len(s) {
		return time.Time{}, fmt.Errorf("%q has no UTC offset: DCSA date-times need Z or ±hh:mm", clip(s))
	}
	offset := 0
	switch s[i] {
	case 'Z', 'z':
		i++
	case '+', '-':
		sign := 1
		if s[i] == '-' {
			sign = -1
		}
		i++
		var oh, om int
		switch {
		case len(s)-i == 5 && digitsAt(s, i, 2) && s[i+2] == ':' && digitsAt(s, i+3, 2):
			oh, om = num(s, i, 2), num(s, i+3, 2)
		case len(s)-i == 4 && digitsAt(s, i, 4):
			oh, om = num(s, i, 2), num(s, i+2, 2)
		default:
			return bad("want a UTC offset of Z or ±hh:mm")
		}
		if oh > 23 || om > 59 {
			return bad("UTC offset out of range")
		}
		offset = sign * (oh*3600 + om*60)
		i = len(s)
	default:
		return bad("want Z or ±hh:mm after the time")
	}
	if i != len(s) {
		return bad("unexpected text after the UTC offset")
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return bad("date or time out of range")
	}
	loc := time.UTC
	if offset != 0 {
		loc = time.FixedZone("", offset)
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc), nil
}

func digitsAt(s string, at, n int) bool {
	if at+n > len(s) {
		return false
	}
	for i := at; i < at+n; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// num reads n digits at s[at:], which digitsAt has checked.
func num(s string, at, n int) int {
	v := 0
	for i := at; i < at+n; i++ {
		v = v*10 + int(s[i]-'0')
	}
	return v
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// clip keeps error messages short when a payload carries a huge string.
func clip(s string) string {
	if len(s) > 64 {
		return Truncate(s, 60) + "…"
	}
	return s
}

// Plausibility bounds for event timestamps.
var (
	// EarliestTime is the earliest eventDateTime or eventCreatedDateTime
	// accepted. Anything before is a placeholder (0001-01-01, 1970-01-01,
	// 1900-01-01) or a typo, never a container movement a carrier API serves.
	EarliestTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ClockSkew is how far a timestamp may lie in the "impossible" future before
// it is rejected. It is a day, not minutes, because the commonest real fault
// is local time labelled as UTC (up to 14 hours off), which should not sink a
// payload; days or years off is a broken feed.
const ClockSkew = 24 * time.Hour

// TimeError names the field that broke a plausibility rule.
type TimeError struct {
	Field  string // "eventCreatedDateTime" or "eventDateTime"
	Reason string
}

func (e *TimeError) Error() string { return e.Field + ": " + e.Reason }

// EventTimes checks that an event's timestamps are plausible:
//   - both are on or after EarliestTime;
//   - eventCreatedDateTime is not after receivedAt+ClockSkew (an event
//     cannot be created after we received it); skipped when receivedAt is zero;
//   - an actual (ACT) event did not happen after it was created
//     (eventDateTime ≤ eventCreatedDateTime+ClockSkew).
//
// Planned and estimated events may lie anywhere in the future.
func EventTimes(created, happened time.Time, classifier string, receivedAt time.Time) *TimeError {
	if created.Before(EarliestTime) {
		return &TimeError{"eventCreatedDateTime", fmt.Sprintf("%s is before %s: not a real event time", created.Format(time.RFC3339), EarliestTime.Format("2006-01-02"))}
	}
	if happened.Before(EarliestTime) {
		return &TimeError{"eventDateTime", fmt.Sprintf("%s is before %s: not a real event time", happened.Format(time.RFC3339), EarliestTime.Format("2006-01-02"))}
	}
	if !receivedAt.IsZero() && created.After(receivedAt.Add(ClockSkew)) {
		return &TimeError{"eventCreatedDateTime", fmt.Sprintf("%s is more than a day after the payload was received (%s)", created.Format(time.RFC3339), receivedAt.UTC().Format(time.RFC3339))}
	}
	if classifier == "ACT" && happened.After(created.Add(ClockSkew)) {
		return &TimeError{"eventDateTime", fmt.Sprintf("actual event at %s is more than a day after its eventCreatedDateTime %s", happened.Format(time.RFC3339), created.Format(time.RFC3339))}
	}
	return nil
}
