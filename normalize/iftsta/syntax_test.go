package iftsta

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
)

func TestSplitSegments(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]string // per segment: tag, then each element with components joined by "|"
	}{
		{"default separators", "UNH+1+IFTSTA:D:99B:UN'BGM+23'",
			[][]string{{"UNH", "1", "IFTSTA|D|99B|UN"}, {"BGM", "23"}}},
		{"release character", "RFF+BN:AB?+C?:D??E?'F'",
			[][]string{{"RFF", "BN|AB+C:D?E'F"}}},
		{"empty elements and components", "TDT+20++1++::ZZZ'",
			[][]string{{"TDT", "20", "", "1", "", "||ZZZ"}}},
		{"newlines, CRLF and BOM between segments", "\xEF\xBB\xBF\r\n UNH+1'\r\n\r\nBGM+2'\n",
			[][]string{{"UNH", "1"}, {"BGM", "2"}}},
		{"UNA with custom separators", "UNA|*.? '\nUNH*1*IFTSTA|D'\nLOC*175*NL?*RTM|139'",
			[][]string{{"UNH", "1", "IFTSTA|D"}, {"LOC", "175", "NL*RTM|139"}}},
		{"UNA without release character", "UNA:+. ,'UNH+A?B'",
			[][]string{{"UNH", "A?B"}}},
		{"UNA with newline terminator", "UNA:+.? \nUNH+1+X\r\nBGM+2\n",
			[][]string{{"UNH", "1", "X"}, {"BGM", "2"}}},
		{"UNZ without terminator at the end", "UNH+1'UNZ+1+R1\n",
			[][]string{{"UNH", "1"}, {"UNZ", "1", "R1"}}},
		{"second interchange with its own UNA", "UNA:+.? 'UNH+1'UNZ+1'\nUNA|*.? 'UNH*2|X'",
			[][]string{{"UNH", "1"}, {"UNZ", "1"}, {"UNH", "2|X"}}},
		{"Latin-1 bytes kept", "LOC+175+DEHAM:139:6:M\xfcnchen'",
			[][]string{{"LOC", "175", "DEHAM|139|6|M\xfcnchen"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			segs, err := splitSegments([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for i, s := range segs {
				if s.num != i+1 {
					t.Errorf("segment %d numbered %d", i+1, s.num)
				}
				row := []string{s.tag}
				for _, e := range s.elems {
					row = append(row, strings.Join(e, "|"))
				}
				got = append(got, row)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestErrors: every malformed payload is a *normalize.ParseError wrapping
// normalize.ErrMalformed that names the segment at fault.
func TestErrors(t *testing.T) {
	tests := []struct {
		name, in, path, reason string
	}{
		{"empty", "", "", "empty payload"},
		{"only whitespace", " \r\n", "", "empty payload"},
		{"short UNA", "UNA:+.", "UNA", "shorter than 9"},
		{"UNA separator twice", "UNA::.? 'UNH+1'", "UNA", "used twice"},
		{"UNA letter as separator", "UNA:X.? 'UNH+1'", "UNA", "letter or digit"},
		{"lower-case tag", "UNH+1'bgm+2'", "segment 2 (\"bgm\")", "invalid segment tag"},
		{"tag too long", "UNH+1'BGMX+2'", "segment 2 (\"BGMX\")", "invalid segment tag"},
		{"release at the end", "UNH+1+A?", "segment 1 (UNH)", "release character at the end"},
		{"truncated segment", "UNH+1+IFTSTA:D:99B:UN'BGM+23+", "segment 2 (BGM)", "no terminator"},
		{"not IFTSTA", "UNH+1+IFTMIN:D:99B:UN'UNT+2+1'", "segment 1 (UNH)", "not IFTSTA"},
		{"segment before UNH", "BGM+23'UNH+1+IFTSTA:D:99B:UN'UNT+2+1'", "segment 1 (BGM)", "outside a message"},
		{"segment after UNT", "UNH+1+IFTSTA:D:99B:UN'UNT+2+1'STS+1+AE'", "segment 3 (STS)", "outside a message"},
		{"UNT count", "UNH+1+IFTSTA:D:99B:UN'BGM+23'UNT+2+1'", "segment 3 (UNT)", "segment count \"2\" but the message has 3"},
		{"UNT reference", "UNH+1+IFTSTA:D:99B:UN'UNT+2+9'", "segment 2 (UNT)", "does not match UNH"},
		{"UNT missing", "UNH+1+IFTSTA:D:99B:UN'BGM+23'", "segment 2 (BGM)", "no UNT"},
		{"UNH inside message", "UNH+1+IFTSTA:D:99B:UN'UNH+2+IFTSTA:D:99B:UN'", "segment 2 (UNH)", "before the UNT"},
		{"UNZ missing", "UNB+UNOA:2+S+R+260311:0930+R1'UNH+1+IFTSTA:D:99B:UN'UNT+2+1'", "segment 3 (UNT)", "no UNZ"},
		{"UNB date", "UNB+UNOA:2+S+R+261311:0930+R1'UNZ+0+R1'", "segment 1 (UNB)", "preparation date"},
		{"no message", "UNB+UNOA:2+S+R+260311:0930+R1'UNZ+0+R1'", "", "no IFTSTA message"},
		// A status whose date cannot be used is refused alone; so are the
		// statuses of a message whose own date cannot be read.
		{"bad event date", string(oneStatusWithDTM("DTM+7:202602301000:203")), "segment 6 (DTM)", "does not match format"},
		{"unsupported date format", string(oneStatusWithDTM("DTM+7:2026W10:718")), "segment 6 (DTM)", "not supported"},
		{"unknown zone name", string(oneStatusWithDTM("DTM+7:202603101000CET:303")), "segment 6 (DTM)", "does not match format"},
		{"bad 406 zone", string(oneStatusWithDTM("DTM+7:202603101000:203", "DTM+ZZZ:0100:406")), "segment 7 (DTM)", "not ±HHMM"},
		{"placeholder date", string(oneStatusWithDTM("DTM+7:19000101:102")), "segment 6 (DTM)", "not a real event time"},
		{"actual event after the message", string(oneStatusWithDTM("DTM+7:202603201000:203")), "segment 6 (DTM)", "after its eventCreatedDateTime"},
		{"bad document date", "UNH+1+IFTSTA:D:99B:UN'BGM+23+T1+9'DTM+137:2026031:102'CNI+1+X'UNT+5+1'", "segment 3 (DTM)", "does not match format"},
		{"container number too long", string(msg("CNI+1+X", "STS+1+AE", "DTM+7:202603100000:203", "EQD+CN+ABCU12345601234567")), "segment 7 (EQD)", "longer than 15"},
	}
	refused := map[string]bool{"bad event date": true, "unsupported date format": true, "unknown zone name": true,
		"placeholder date": true, "actual event after the message": true, "bad document date": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Parse([]byte(tt.in), testEnv)
			if refused[tt.name] {
				if err != nil || len(res.Refused) != 1 {
					t.Fatalf("got %v, refusals %v; want one refused status", err, res.Refused)
				}
				err = res.Refused[0]
			} else if err == nil {
				t.Fatalf("no error; %d events, refusals %v", len(res.Events), res.Refused)
			} else if res.Events != nil || res.Refused != nil {
				t.Errorf("events or refusals returned with an error")
			}
			var pe *normalize.ParseError
			if !errors.As(err, &pe) || !errors.Is(err, normalize.ErrMalformed) {
				t.Fatalf("%T %v is not a ParseError wrapping ErrMalformed", err, err)
			}
			if pe.Format != Format || pe.Path != tt.path || !strings.Contains(pe.Reason, tt.reason) {
				t.Errorf("got %q %q %q, want path %q, reason containing %q", pe.Format, pe.Path, pe.Reason, tt.path, tt.reason)
			}
		})
	}
}

// oneStatusWithDTM is a message with one gate-in whose date segments are
// given; its first DTM is segment 6.
// An interchange trailer that does not match its header (control count,
// reference) around whole messages is counted, and the messages are read.
func TestEnvelopeMismatchCounted(t *testing.T) {
	body := string(oneStatus("AE"))
	for _, c := range []struct{ name, unz, want string }{
		{"count", "UNZ+2+R1'", `interchange control count "2" but the interchange has 1 messages`},
		{"reference", "UNZ+1+R2'", `interchange reference "R2" does not match UNB "R1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Parse([]byte("UNB+UNOA:2+S+R+260311:0930+R1'"+body+c.unz), testEnv)
			if err != nil || len(res.Events) != 1 {
				t.Fatalf("%v, %d events; want the message's event", err, len(res.Events))
			}
			var got []string
			for _, r := range res.Repairs {
				if r.Kind == normalize.RepairEnvelopeMismatch {
					got = append(got, r.Path+": "+r.Value)
				}
			}
			if len(got) != 1 || !strings.HasSuffix(got[0], c.want) {
				t.Errorf("envelope repairs %q, want one ending %q", got, c.want)
			}
		})
	}
}

func oneStatusWithDTM(dtms ...string) []byte {
	body := append([]string{"CNI+1+X", "STS+1+I"}, dtms...)
	return msg(append(body, "EQD+CN+ABCU1234560")...)
}

// TestUnusedDateNotChecked: a malformed DTM of a status that is not mapped,
// or with a qualifier that dates nothing, does not fail the payload.
func TestUnusedDateNotChecked(t *testing.T) {
	raw := msg("CNI+1+X", "STS+1+CT", "DTM+7:2026XX:203", "STS+1+I", "DTM+7:202603100000:203", "DTM+2:garbage:999", "EQD+CN+ABCU1234560")
	events, st, err := strictStats(raw, testEnv)
	if err != nil || len(events) != 1 || st.Skipped["CT"] != 1 {
		t.Fatalf("%v %+v %v", events, st, err)
	}
}

func TestParseDTM(t *testing.T) {
	plus8 := time.FixedZone("", 8*3600)
	tests := []struct {
		value, format, zone string
		want                time.Time
		wantErr             bool
	}{
		{"20260310", "102", "", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), false},
		{"202603101530", "203", "", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC), false},
		{"20260310153045", "204", "", time.Date(2026, 3, 10, 15, 30, 45, 0, time.UTC), false},
		{"202603101530", "203", "+0800", time.Date(2026, 3, 10, 15, 30, 0, 0, plus8), false},
		{"202603101530", "203", "+08:00", time.Date(2026, 3, 10, 15, 30, 0, 0, plus8), false},
		{"202603101530+08:00", "203", "-0500", time.Date(2026, 3, 10, 15, 30, 0, 0, plus8), false}, // own suffix wins
		{"202603101530Z", "203", "", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC), false},
		{"20260310153045-0330", "204", "", time.Date(2026, 3, 10, 15, 30, 45, 0, time.FixedZone("", -(3*3600+30*60))), false},
		{"202603101530+0800", "205", "", time.Date(2026, 3, 10, 15, 30, 0, 0, plus8), false},
		{"202603101530+08", "205", "", time.Date(2026, 3, 10, 15, 30, 0, 0, plus8), false},
		{"202603101530UTC", "303", "", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC), false},
		{"202603101530GMT", "303", "", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC), false},
		{"20260310153045+0800", "304", "", time.Date(2026, 3, 10, 15, 30, 45, 0, plus8), false},
		{"260310", "101", "", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), false},
		{"2603101530", "201", "", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC), false},
		{"260310153045", "202", "", time.Date(2026, 3, 10, 15, 30, 45, 0, time.UTC), false},
		{"20260310", "", "", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), false},
		{"202603101530", "", "", time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC), false},
		{"20260310153045", "", "+0800", time.Date(2026, 3, 10, 15, 30, 45, 0, plus8), false},
		{"20260229", "102", "", time.Time{}, true}, // 2026 is no leap year
		{"20261301", "102", "", time.Time{}, true},
		{"202603102400", "203", "", time.Time{}, true},
		{"202603101560", "203", "", time.Time{}, true},
		{"2026031015", "203", "", time.Time{}, true},
		{"20260310+0800", "102", "", time.Time{}, true}, // a date has no zone
		{"202603101530", "205", "", time.Time{}, true},  // 205 needs its offset
		{"202603101530CET", "303", "", time.Time{}, true},
		{"202603101530+1500", "205", "", time.Time{}, true},
		{"202603101530+08x0", "205", "", time.Time{}, true},
		{"202603101530", "203", "bogus", time.Time{}, true},
		{"2026031", "", "", time.Time{}, true},
		{"202603101530", "718", "", time.Time{}, true},
		{"", "203", "", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := parseDTM(tt.value, tt.format, tt.zone)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseDTM(%q, %q, %q) error %v, want error %v", tt.value, tt.format, tt.zone, err, tt.wantErr)
			continue
		}
		if err == nil && (!got.Equal(tt.want) || formatTime(got) != formatTime(tt.want)) {
			t.Errorf("parseDTM(%q, %q, %q) = %s, want %s", tt.value, tt.format, tt.zone, formatTime(got), formatTime(tt.want))
		}
	}
}

// TestZones: how a time's zone reaches eventDateTime, end to end.
func TestZones(t *testing.T) {
	tests := []struct {
		name string
		dtms []string
		want string
	}{
		{"no zone: UTC", []string{"DTM+7:202603101530:203"}, "2026-03-10T15:30:00Z"},
		{"following 406 DTM", []string{"DTM+7:202603101530:203", "DTM+ZZZ:?+0800:406"}, "2026-03-10T15:30:00+08:00"},
		{"406 with a negative offset", []string{"DTM+7:202603101530:203", "DTM+ZZZ:-0500:406"}, "2026-03-10T15:30:00-05:00"},
		{"406 not right after the date is ignored", []string{"DTM+7:202603101530:203", "DTM+2:20260311:102", "DTM+ZZZ:?+0800:406"}, "2026-03-10T15:30:00Z"},
		{"205 with released +", []string{"DTM+7:202603101530?+0100:205"}, "2026-03-10T15:30:00+01:00"},
		{"205 with unreleased + (rejoined)", []string{"DTM+7:202603101530+0100:205"}, "2026-03-10T15:30:00+01:00"},
		{"406 with unreleased + (rejoined)", []string{"DTM+7:202603101530:203", "DTM+ZZZ:+0930:406"}, "2026-03-10T15:30:00+09:30"},
		{"suffix on 204", []string{"DTM+7:20260310153000?+01?:00:204"}, "2026-03-10T15:30:00+01:00"},
		{"303 UTC", []string{"DTM+7:202603101530UTC:303"}, "2026-03-10T15:30:00Z"},
		{"102 date only", []string{"DTM+7:20260310:102"}, "2026-03-10T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := only(t, oneStatusWithDTM(tt.dtms...))
			if e.EventDateTime != tt.want {
				t.Errorf("eventDateTime %q, want %q", e.EventDateTime, tt.want)
			}
		})
	}
}

// TestClassifier: the qualifier of the DTM that dates a status decides ACT,
// EST or PLN, and a VA with only its TDT group's ETA is an estimate.
func TestClassifier(t *testing.T) {
	tests := []struct {
		code string
		body []string
		want string
	}{
		{"I", []string{"DTM+7:202603100000:203"}, "ACT"},
		{"I", []string{"DTM+334:202603100000:203"}, "ACT"},
		{"VA", []string{"DTM+178:202603100000:203"}, "ACT"},
		{"VA", []string{"DTM+132:202604100000:203"}, "EST"},
		{"VD", []string{"DTM+133:202604100000:203"}, "EST"},
		{"VA", []string{"DTM+232:202604100000:203"}, "PLN"},
		{"VD", []string{"DTM+189:202604100000:203"}, "PLN"},
		{"VA", []string{"TDT+20+1W+1", "LOC+9+CNSHA:139:6", "DTM+133:202603010000:203", "LOC+11+NLRTM:139:6", "DTM+132:202604100000:203"}, "EST"},
		{"VA", []string{"TDT+20+1W+1", "LOC+11+NLRTM:139:6", "DTM+132:202604100000:203", "DTM+178:202603090000:203"}, "ACT"},
		{"VD", []string{"TDT+20+1W+1", "LOC+9+CNSHA:139:6", "DTM+186:202603010000:203", "LOC+11+NLRTM:139:6", "DTM+132:202604100000:203"}, "ACT"},
	}
	for _, tt := range tests {
		body := append([]string{"CNI+1+X", "STS+1+" + tt.code}, tt.body...)
		e := only(t, msg(append(body, "EQD+CN+ABCU1234560")...))
		if e.EventClassifierCode != tt.want {
			t.Errorf("%s %v: %s, want %s", tt.code, tt.body, e.EventClassifierCode, tt.want)
		}
	}
	// The TDT group's places follow the status's end of the leg.
	body := []string{"CNI+1+X", "STS+1+VA", "TDT+20+1W+1", "LOC+9+CNSHA:139:6", "DTM+133:202603010000:203", "LOC+11+NLRTM:139:6", "DTM+132:202604100000:203", "EQD+CN+ABCU1234560"}
	if e := only(t, msg(body...)); e.TransportCall.Location.UNLocationCode != "NLRTM" {
		t.Errorf("VA placed at %+v", e.TransportCall.Location)
	}
}
