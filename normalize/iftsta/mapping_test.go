package iftsta

import (
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/schemas/dcsa"
)

// msg wraps message body segments (default separators, one per string) in
// UNH, BGM, DTM 137 and a UNT with the right count.
func msg(body ...string) []byte {
	segs := append([]string{"UNH+1+IFTSTA:D:99B:UN", "BGM+23+T1+9", "DTM+137:202603120815:203"}, body...)
	segs = append(segs, "UNT+"+strconv.Itoa(len(segs)+1)+"+1")
	return []byte(strings.Join(segs, "'\n") + "'\n")
}

// oneStatus is a D.99B consignment with one status of the given code.
func oneStatus(code string, extra ...string) []byte {
	body := []string{"CNI+1+BL1", "STS+1+" + code, "DTM+7:202603100000:203", "LOC+175+NLRTM:139:6:Rotterdam"}
	body = append(body, extra...)
	body = append(body, "EQD+CN+ABCU1234560:6346:5+22G1:6346:5+2+2")
	return msg(body...)
}

// TestStatusCodes pins what each X12 315 status code becomes. It restates the
// mapping instead of reading statusTable, so a changed row fails here.
func TestStatusCodes(t *testing.T) {
	vessel := "TDT+20+1W+1+++++9321483:146" // a TDT of the status saying its mode
	tests := []struct {
		code, eventType, dcsaCode, empty, mode string
		extra                                  []string
	}{
		{"EE", "EQUIPMENT", "GTOT", "EMPTY", "", nil},
		{"I", "EQUIPMENT", "GTIN", "LADEN", "", nil},
		{"AE", "EQUIPMENT", "LOAD", "LADEN", "VESSEL", nil},
		{"VD", "TRANSPORT", "DEPA", "", "VESSEL", nil},
		{"VA", "TRANSPORT", "ARRI", "", "VESSEL", nil},
		{"UV", "EQUIPMENT", "DISC", "LADEN", "VESSEL", nil},
		{"OA", "EQUIPMENT", "GTOT", "LADEN", "", nil},
		{"D", "EQUIPMENT", "DROP", "LADEN", "", nil},
		{"RD", "EQUIPMENT", "GTIN", "EMPTY", "", nil},
		{"AL", "EQUIPMENT", "LOAD", "LADEN", "RAIL", nil},
		{"RL", "TRANSPORT", "DEPA", "", "RAIL", nil},
		{"AR", "TRANSPORT", "ARRI", "", "RAIL", nil},
		{"A", "TRANSPORT", "ARRI", "", "RAIL", nil},
		{"UR", "EQUIPMENT", "DISC", "LADEN", "RAIL", nil},
		{"P", "TRANSPORT", "DEPA", "", "RAIL", nil},
		{"AM", "EQUIPMENT", "LOAD", "LADEN", "TRUCK", nil},
		{"AO", "EQUIPMENT", "LOAD", "LADEN", "BARGE", nil},
		{"AP", "EQUIPMENT", "LOAD", "LADEN", "VESSEL", nil},
		// UNECE Rec. 24 codes: the mode only from a TDT.
		{"1", "TRANSPORT", "ARRI", "", "VESSEL", []string{vessel}},
		{"24", "TRANSPORT", "DEPA", "", "VESSEL", []string{vessel}},
		{"127", "TRANSPORT", "DEPA", "", "VESSEL", []string{vessel}},
		{"48", "EQUIPMENT", "LOAD", "LADEN", "", nil},
		{"79", "EQUIPMENT", "LOAD", "LADEN", "", nil},
		{"29", "EQUIPMENT", "DISC", "LADEN", "", nil},
		{"21", "EQUIPMENT", "DROP", "LADEN", "", nil},
		{"93", "EQUIPMENT", "STUF", "LADEN", "", nil},
		{"94", "EQUIPMENT", "STUF", "LADEN", "", nil},
		{"28", "EQUIPMENT", "STRP", "EMPTY", "", nil},
	}
	mapped := 0
	for _, m := range statusTable {
		if m.eventType != "" {
			mapped++
		}
	}
	if mapped != len(tests) {
		t.Errorf("statusTable maps %d codes, this test pins %d: pin the new ones", mapped, len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			events, err := normalize.Strict(Parse(oneStatus(tt.code, tt.extra...), testEnv))
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 1 {
				t.Fatalf("%d events", len(events))
			}
			e := events[0]
			if e.EventType != tt.eventType || e.EquipmentEventTypeCode+e.TransportEventTypeCode != tt.dcsaCode || e.EmptyIndicatorCode != tt.empty {
				t.Errorf("got %s %s%s %s, want %s %s %s", e.EventType, e.EquipmentEventTypeCode, e.TransportEventTypeCode, e.EmptyIndicatorCode, tt.eventType, tt.dcsaCode, tt.empty)
			}
			mode := ""
			if e.TransportCall != nil {
				mode = e.TransportCall.ModeOfTransport
			}
			if mode != tt.mode {
				t.Errorf("modeOfTransport %q, want %q", mode, tt.mode)
			}
			wantISO := "22G1" // equipment events only: a transport event has no ISOEquipmentCode
			if e.EventType == dcsa.EventTypeTransport {
				wantISO = ""
			}
			if e.EquipmentReference != "ABCU1234560" || e.ISOEquipmentCode != wantISO {
				t.Errorf("equipment %q %q", e.EquipmentReference, e.ISOEquipmentCode)
			}
			if e.EventType == dcsa.EventTypeTransport && (e.TransportCall.Location == nil || e.TransportCall.Location.UNLocationCode != "NLRTM") {
				t.Errorf("transport event location %+v", e.TransportCall.Location)
			}
			if e.EventType == dcsa.EventTypeEquipment && (e.EventLocation == nil || e.EventLocation.UNLocationCode != "NLRTM") {
				t.Errorf("equipment event location %+v", e.EventLocation)
			}
		})
	}
}

func TestSkippedAndUnknownCodes(t *testing.T) {
	// Known codes that are no container movement, X12's and UNECE Rec.
	// 24's (31 en route, 12 cleared by customs): left out, counted, and
	// kept as a not-carried repair saying why.
	for _, code := range []string{"CT", "CR", "IB", "AV", "NF", "C", "E", "AA", "AD", "CU", "AG", "K", "FT", "CS", "OB", "BR", "BF", "31", "12"} {
		res, st, err := ParseStats(oneStatus(code), testEnv)
		if err != nil || len(res.Events) != 0 || len(res.Refused) != 0 || st.Skipped[code] != 1 || st.Statuses != 1 {
			t.Errorf("%s: %d events, stats %+v, err %v", code, len(res.Events), st, err)
		}
		if len(res.Repairs) != 1 || res.Repairs[0].Kind != normalize.RepairNotCarriedLeftOut || !strings.HasPrefix(res.Repairs[0].Value, code+": ") {
			t.Errorf("%s: repairs %+v, want it kept as not_carried_left_out", code, res.Repairs)
		}
	}
	// An equipment status of a consignment with no container (EANCOM's
	// freight statuses) is refused, with why: no event without equipment.
	if res, _, err := ParseStats(msg("CNI+1+BL1", "STS+1+21", "DTM+7:202603100000:203"), testEnv); err != nil || len(res.Events) != 0 || len(res.Refused) != 1 ||
		!strings.Contains(res.Refused[0].Error(), "names no container") {
		t.Errorf("STS 21 without a container: %d events, refused %v, err %v", len(res.Events), res.Refused, err)
	}
	// A Rec. 24 arrival with no TDT to say by what is refused, with why.
	res, _, err := ParseStats(oneStatus("1"), testEnv)
	if err != nil || len(res.Events) != 0 || len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Error(), "no TDT of the status gives its means of transport") {
		t.Errorf("STS 1 without a TDT: %d events, refused %v, err %v", len(res.Events), res.Refused, err)
	}
	// An unknown code is left out, counted, and kept as a repair naming
	// its STS segment and the code: never silently dropped.
	for _, code := range []string{"ZZ", "999", ""} {
		res, st, err := ParseStats(oneStatus(code), testEnv)
		if err != nil || len(res.Events) != 0 || len(res.Refused) != 0 || st.Unknown[code] != 1 {
			t.Errorf("%q: %d events, stats %+v, err %v", code, len(res.Events), st, err)
		}
		if len(res.Repairs) != 1 || res.Repairs[0] != (normalize.Repair{Kind: normalize.RepairUnknownCode, Path: "segment 5 (STS)", Value: code}) {
			t.Errorf("%q: repairs %+v, want the code kept as unknown_code_left_out", code, res.Repairs)
		}
	}
}

// TestFullEmpty: EQD 8169 (sixth element) wins over the code's default;
// the fourth element (8077 supplier: 4 and 5 are deconsolidator and third
// party) is never read as full/empty.
func TestFullEmpty(t *testing.T) {
	tests := []struct {
		code, eqd, want string
	}{
		{"AE", "EQD+CN+ABCU1234560+22G1+2+2+4", "EMPTY"},
		{"EE", "EQD+CN+ABCU1234560+22G1+2+2+5", "LADEN"},
		{"AE", "EQD+CN+ABCU1234560+22G1+4+2", "LADEN"},
		{"RD", "EQD+CN+ABCU1234560+22G1+5", "EMPTY"},
	}
	for _, tt := range tests {
		raw := msg("CNI+1+BL1", "STS+1+"+tt.code, "DTM+7:202603100000:203", tt.eqd)
		events, err := normalize.Strict(Parse(raw, testEnv))
		if err != nil || len(events) != 1 {
			t.Fatalf("%s: %v %v", tt.eqd, events, err)
		}
		if got := events[0].EmptyIndicatorCode; got != tt.want {
			t.Errorf("%s %s: %s, want %s", tt.code, tt.eqd, got, tt.want)
		}
	}
}

func TestTransportDetails(t *testing.T) {
	t.Run("IMO by code list", func(t *testing.T) {
		e := only(t, oneStatus("AE", "TDT+20+101N+1++MAEU:172:20+++9321483:146:11:EMMA MAERSK:DK"))
		v := e.TransportCall.Vessel
		if v == nil || v.VesselIMONumber != "9321483" || v.VesselName != "EMMA MAERSK" || e.TransportCall.CarrierVoyageNumber != "101N" {
			t.Errorf("transportCall %+v vessel %+v", e.TransportCall, v)
		}
	})
	t.Run("unqualified IMO needs its check digit", func(t *testing.T) {
		e := only(t, oneStatus("AE", "TDT+20+101N+1+++++9321483::ZZZ:EMMA MAERSK"))
		if e.TransportCall.Vessel == nil {
			t.Error("valid unqualified IMO not used")
		}
		e = only(t, oneStatus("AE", "TDT+20+101N+1+++++9321484::ZZZ:EMMA MAERSK"))
		if e.TransportCall.Vessel != nil {
			t.Errorf("bad check digit taken as IMO: %+v", e.TransportCall.Vessel)
		}
	})
	t.Run("call sign only: no vessel (2.0.2 requires an IMO)", func(t *testing.T) {
		e := only(t, oneStatus("AE", "TDT+20+101N+1+++++OXOS2:103::EMMA MAERSK"))
		if e.TransportCall.Vessel != nil || e.TransportCall.ModeOfTransport != "VESSEL" {
			t.Errorf("transportCall %+v", e.TransportCall)
		}
	})
	t.Run("voyage from RFF+VON", func(t *testing.T) {
		e := only(t, oneStatus("AE", "TDT+20++1", "RFF+VON:207W"))
		if e.TransportCall.CarrierVoyageNumber != "207W" {
			t.Errorf("voyage %q", e.TransportCall.CarrierVoyageNumber)
		}
	})
	t.Run("barge TDT makes a vessel status BARGE", func(t *testing.T) {
		e := only(t, oneStatus("UV", "TDT+30+B12+8"))
		if e.TransportCall.ModeOfTransport != "BARGE" {
			t.Errorf("mode %q", e.TransportCall.ModeOfTransport)
		}
	})
	t.Run("rail status ignores the consignment's vessel", func(t *testing.T) {
		raw := msg("TDT+20+101N+1+++++9321483:146", "CNI+1+BL1", "STS+1+AL", "DTM+7:202603100000:203", "LOC+175+NLRTM:139:6", "EQD+CN+ABCU1234560")
		e := only(t, raw)
		if e.TransportCall.ModeOfTransport != "RAIL" || e.TransportCall.Vessel != nil || e.TransportCall.CarrierVoyageNumber != "" {
			t.Errorf("transportCall %+v", e.TransportCall)
		}
	})
	t.Run("vessel status inherits the message's vessel", func(t *testing.T) {
		raw := msg("TDT+20+101N+1+++++9321483:146", "CNI+1+BL1", "STS+1+VD", "DTM+7:202603100000:203", "LOC+175+NLRTM:139:6", "EQD+CN+ABCU1234560")
		e := only(t, raw)
		if e.TransportCall.Vessel == nil || e.TransportCall.CarrierVoyageNumber != "101N" {
			t.Errorf("transportCall %+v", e.TransportCall)
		}
	})
	t.Run("gate move does not inherit the consignment's vessel", func(t *testing.T) {
		raw := msg("CNI+1+BL1", "TDT+20+101N+1+++++9321483:146", "STS+1+OA", "DTM+7:202603100000:203", "LOC+175+NLRTM:139:6", "EQD+CN+ABCU1234560")
		if e := only(t, raw); e.TransportCall != nil {
			t.Errorf("transportCall %+v", e.TransportCall)
		}
	})
}

func TestPlaces(t *testing.T) {
	t.Run("consignment places are never the event place", func(t *testing.T) {
		raw := msg("CNI+1+BL1", "LOC+9+CNSHA:139:6", "STS+1+AE", "DTM+7:202603100000:203", "EQD+CN+ABCU1234560")
		if e := only(t, raw); e.EventLocation != nil {
			t.Errorf("eventLocation %+v", e.EventLocation)
		}
	})
	t.Run("event qualifier wins over the side's", func(t *testing.T) {
		raw := msg("CNI+1+BL1", "STS+1+AE", "DTM+7:202603100000:203", "LOC+9+CNSHA:139:6", "LOC+175+KRPUS:139:6", "EQD+CN+ABCU1234560")
		if e := only(t, raw); e.EventLocation.UNLocationCode != "KRPUS" {
			t.Errorf("eventLocation %+v", e.EventLocation)
		}
	})
	t.Run("not a UN/LOCODE: name only, no transport call location", func(t *testing.T) {
		raw := msg("CNI+1+BL1", "STS+1+VA", "DTM+7:202603100000:203", "LOC+175+X1:ZZZ:ZZZ:Somewhere", "EQD+CN+ABCU1234560")
		e := only(t, raw)
		if e.TransportCall.Location != nil || e.TransportCall.UNLocationCode != "" {
			t.Errorf("transportCall %+v", e.TransportCall)
		}
	})
}

func TestContainers(t *testing.T) {
	t.Run("RFF+EQ when the status has no EQD", func(t *testing.T) {
		raw := msg("CNI+1+BL1", "STS+1+I", "RFF+EQ:abcu1234560", "RFF+EQ:ABCU7654321", "DTM+7:202603100000:203")
		events, err := normalize.Strict(Parse(raw, testEnv))
		if err != nil || len(events) != 2 || events[0].EquipmentReference != "ABCU1234560" || events[1].EquipmentReference != "ABCU7654321" {
			t.Fatalf("%+v %v", events, err)
		}
	})
	t.Run("no container: one event for the booking", func(t *testing.T) {
		raw := msg("RFF+BN:B77", "CNI+1+BL1", "STS+1+VD", "DTM+7:202603100000:203")
		e := only(t, raw)
		if e.EquipmentReference != "" || len(e.DocumentReferences) != 1 || e.DocumentReferences[0].DocumentReferenceValue != "B77" {
			t.Errorf("%+v", e)
		}
	})
	t.Run("chassis EQD is not a container", func(t *testing.T) {
		raw := msg("CNI+1+BL1", "STS+1+I", "DTM+7:202603100000:203", "EQD+CN+ABCU1234560", "EQD+CH+CHAS123")
		events, err := normalize.Strict(Parse(raw, testEnv))
		if err != nil || len(events) != 2 || events[1].EquipmentReference != "" {
			t.Fatalf("%+v %v", events, err)
		}
	})
}

// TestEquipmentHeadedCluster: in D.14A the STS segments follow the EQD
// directly and share the dates and places after them.
func TestEquipmentHeadedCluster(t *testing.T) {
	raw := msg("EQD+CN+ABCU1234560+45G1+2+2+5", "STS+1+UV", "STS+1+OA", "DTM+7:202603100000:203", "LOC+175+NLRTM:139:6",
		"EQD+CN+ABCU7654321+45G1+2+2+5", "STS+1+I", "DTM+7:202603110000:203")
	events, err := normalize.Strict(Parse(raw, testEnv))
	if err != nil || len(events) != 3 {
		t.Fatalf("%d events, %v", len(events), err)
	}
	if events[0].EquipmentEventTypeCode != "DISC" || events[1].EquipmentEventTypeCode != "GTOT" ||
		events[0].EventDateTime != events[1].EventDateTime || events[1].EventLocation.UNLocationCode != "NLRTM" {
		t.Errorf("cluster: %+v / %+v", events[0], events[1])
	}
	if events[2].EquipmentReference != "ABCU7654321" || events[2].EventDateTime != "2026-03-11T00:00:00Z" || events[2].EventLocation != nil {
		t.Errorf("second group: %+v", events[2])
	}
}

func TestUndated(t *testing.T) {
	raw := msg("CNI+1+BL1", "STS+1+AE", "DTM+137:202603100000:203", "EQD+CN+ABCU1234560", "STS+1+UV", "DTM+7:202603110000:203", "EQD+CN+ABCU1234560")
	// The undated AE is refused on its own (dead-lettered); the UV comes out.
	res, st, err := ParseStats(raw, testEnv)
	if err != nil || len(res.Events) != 1 || st.Undated != 1 || res.Events[0].EquipmentEventTypeCode != "DISC" {
		t.Fatalf("%+v %+v %v", res.Events, st, err)
	}
	if len(res.Refused) != 1 || res.Refused[0].Element != 0 || res.Refused[0].Path != "segment 5 (STS)" || !strings.Contains(res.Refused[0].Reason, "no DTM") {
		t.Errorf("refused %v, want the AE status (element 0) refused for its missing date", res.Refused)
	}
}

func TestCreatedDateTime(t *testing.T) {
	bare := []byte("UNH+1+IFTSTA:D:99B:UN'CNI+1+X'STS+1+I'DTM+7:202603100000:203'EQD+CN+ABCU1234560'UNT+6+1'")
	e := only(t, bare)
	if e.EventCreatedDateTime != "2026-04-22T12:00:00Z" {
		t.Errorf("no DTM 137, no UNB: created %q, want receipt time", e.EventCreatedDateTime)
	}
	withUNB := append([]byte("UNB+UNOA:2+S+R+260311:0930+R1'"), append(bare, "UNZ+1+R1'"...)...)
	if e := only(t, withUNB); e.EventCreatedDateTime != "2026-03-11T09:30:00Z" {
		t.Errorf("UNB time not used: %q", e.EventCreatedDateTime)
	}
	_, err := normalize.Strict(Parse(bare, normalize.Envelope{SCAC: "OOLU"}))
	var pe *normalize.ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "no creation time") {
		t.Errorf("no creation time anywhere: %v", err)
	}
}

func TestSeveralInterchanges(t *testing.T) {
	one := "UNB+UNOA:2+S+R+260311:0930+R1'UNH+1+IFTSTA:D:99B:UN'CNI+1+X'STS+1+I'DTM+7:202603100000:203'EQD+CN+ABCU1234560'UNT+6+1'UNZ+1+R1'\n"
	two := strings.ReplaceAll(strings.ReplaceAll(one, "R1", "R2"), "ABCU1234560", "ABCU7654321")
	events, st, err := strictStats([]byte(one+two), testEnv)
	if err != nil || len(events) != 2 || st.Messages != 2 || events[1].EquipmentReference != "ABCU7654321" {
		t.Fatalf("%+v %+v %v", events, st, err)
	}
}

func only(t *testing.T, raw []byte) dcsa.Event {
	t.Helper()
	events, err := normalize.Strict(Parse(raw, testEnv))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	return events[0]
}

// TestStatusTableDocumented keeps docs/iftsta.md and statusTable in step:
// between the status-table markers of the document, the rows "| `CODE` |"
// are exactly the codes of the table.
func TestStatusTableDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/iftsta.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(doc), "<!-- status-table -->")
	section, _, ok2 := strings.Cut(rest, "<!-- /status-table -->")
	if !ok1 || !ok2 {
		t.Fatal("docs/iftsta.md lacks the <!-- status-table --> ... <!-- /status-table --> markers")
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "| `"); ok {
			if code, _, ok := strings.Cut(rest, "` |"); ok {
				documented[code] = true
			}
		}
	}
	var missing, extra []string
	for code := range statusTable {
		if !documented[code] {
			missing = append(missing, code)
		}
	}
	for code := range documented {
		if _, ok := statusTable[code]; !ok {
			extra = append(extra, code)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("docs/iftsta.md status table: missing %v, not in statusTable %v", missing, extra)
	}
}
