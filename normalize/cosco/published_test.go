package cosco_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/normalize/cosco"
	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/reference"
)

func publishedFile(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(reference.Carriers(), "COSU", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// COSCO's published answers (JSON with comments, code 0, labels, local
// times) are read with their key facts: container, time as written,
// place as given, mode, references, voyage; every repair counted.
func TestPublishedShape(t *testing.T) {
	env := normalize.Envelope{SCAC: "COSU", ReceivedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	res, err := cosco.Parse(publishedFile(t, "cargotracking-by-container.txt"), env)
	if err != nil || len(res.Refused) > 0 {
		t.Fatalf("err %v, refused %v", err, res.Refused)
	}
	if len(res.Events) != 16 {
		t.Fatalf("%d events, want 16 (18 statuses, 2 of them Cargo Received)", len(res.Events))
	}
	first := res.Events[0]
	if first.EquipmentReference != "CBHU4398907" || first.EquipmentEventTypeCode != "DISC" || first.EventDateTime != "2015-10-25T17:00:00Z" ||
		first.EventLocation == nil || first.EventLocation.LocationName != "Aisa World Port Terminal,Yangon,Yangon,Myanmar" ||
		first.EventLocation.Address == nil || first.EventLocation.Address.Country != "Myanmar" || first.TransportCall == nil || first.TransportCall.ModeOfTransport != "VESSEL" {
		t.Fatalf("first event %+v", first)
	}
	last := res.Events[15]
	if last.EquipmentEventTypeCode != "GTOT" || last.EmptyIndicatorCode != "EMPTY" || last.TransportCall.ModeOfTransport != "TRUCK" {
		t.Fatalf("Empty Equipment Despatched read as %+v", last)
	}
	kinds := map[normalize.RepairKind]int{}
	for _, r := range res.Repairs {
		kinds[r.Kind]++
	}
	if kinds[normalize.RepairCommentsRemoved] != 1 || kinds[normalize.RepairLocalTimeAsUTC] != 16 || kinds[normalize.RepairNotCarriedLeftOut] != 2 {
		t.Fatalf("repairs %v", kinds)
	}
	for _, e := range res.Events {
		if err := validate.Structural(e); err != nil {
			t.Errorf("%s: %v", e.EventID, err)
		}
	}

	res, err = cosco.Parse(publishedFile(t, "cargotracking-by-bl.txt"), env)
	if err != nil || len(res.Events) != 3 {
		t.Fatalf("by bill of lading: %d events, err %v", len(res.Events), err)
	}
	gtin, depa := res.Events[0], res.Events[1]
	if gtin.EquipmentEventTypeCode != "GTIN" || gtin.EmptyIndicatorCode != "EMPTY" || gtin.EventDateTime != "2015-02-06T09:35:00Z" ||
		len(gtin.DocumentReferences) != 2 || gtin.DocumentReferences[0].DocumentReferenceValue != "6103622780" {
		t.Fatalf("latest status %+v", gtin)
	}
	if depa.TransportEventTypeCode != "DEPA" || depa.TransportCall.CarrierVoyageNumber != "039E" || depa.TransportCall.CarrierServiceCode != "CEN" ||
		depa.TransportCall.OtherFacility != "Qingdao" || depa.EventDateTime != "2014-12-29T11:00:00Z" {
		t.Fatalf("leg departure %+v %+v", depa, depa.TransportCall)
	}
	for _, e := range res.Events {
		if err := validate.Structural(e); err != nil {
			t.Errorf("%s: %v", e.EventID, err)
		}
	}

	res, err = cosco.Parse(publishedFile(t, "cargotracking-not-found.json"), env)
	if err != nil || len(res.Events) != 0 {
		t.Fatalf("not found: %d events, err %v", len(res.Events), err)
	}
	if _, err := cosco.Parse([]byte(`{"code": 1001, "message": "invalid sign", "data": null}`), env); err == nil {
		t.Fatal("a published error code read as an answer")
	}
}

// A status label no table knows is left out and counted, the label kept.
func TestPublishedUnknownLabel(t *testing.T) {
	raw := []byte(`{"code":0,"message":"success","data":{"type":"cntr","numberType":"cntr","content":{"containers":[{"containerCircleStatus":[` +
		`{"uuid":"u1","containerNumber":"CBHU4398907","containerNumberStatus":"Stripped at CFS","location":"a,b,c,d","timeOfIssue":"2015-10-25 17:00","transportation":" "}]}]}}}`)
	res, err := cosco.Parse(raw, normalize.Envelope{SCAC: "COSU", ReceivedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
	if err != nil || len(res.Events) != 0 {
		t.Fatalf("%d events, err %v", len(res.Events), err)
	}
	if len(res.Repairs) != 1 || res.Repairs[0].Kind != normalize.RepairUnknownCode || res.Repairs[0].Value != "Stripped at CFS" {
		t.Fatalf("repairs %+v", res.Repairs)
	}
}
