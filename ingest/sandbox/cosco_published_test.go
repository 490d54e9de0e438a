package sandbox

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/normalize"
	normcosco "github.com/contrack/contrack/normalize/cosco"
	"github.com/contrack/contrack/schemas/dcsa"
)

// A share of COSU's shipments is answered in the shape COSCO publishes
// (code 0, labels, local times, free-text places), the others in the
// documented one; the reader gets from the published answer the same
// containers, equipment codes and wall-clock times as from the documented
// one's actual events, each local time counted.
func TestCOSCOPublished(t *testing.T) {
	deviant := NewHandler(Config{Clock: fixedClock, CoscoClients: map[string]string{"known": "s3cret"}})
	strict := NewHandler(Config{Clock: fixedClock, CoscoClients: map[string]string{"known": "s3cret"}, StrictShapes: true})
	call := func(cfgStrict bool, query string) []byte {
		req := httptest.NewRequest("GET", "/cosu/tracking/v1/cargoTracking?"+query, nil)
		signCOSCO(req, "known", "s3cret", wallNow)
		rec := httptest.NewRecorder()
		if cfgStrict {
			strict.ServeHTTP(rec, req)
		} else {
			deviant.ServeHTTP(rec, req)
		}
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", query, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	env := normalize.Envelope{SCAC: "COSU", ReceivedAt: wallNow}
	published, documented := 0, 0
	for i := 0; i < 60 && published < 3; i++ {
		n := journey.CompleteContainer(fmt.Sprintf("CSNU%06d", i))
		body := call(false, "trackingType=CONTAINER&trackingNo="+n)
		if !coscoPublished("COSU", journey.KindContainer, n) {
			documented++
			if !bytes.Equal(body, call(true, "trackingType=CONTAINER&trackingNo="+n)) {
				t.Fatalf("%s: not a published-shape shipment, and answered otherwise than strictly", n)
			}
			continue
		}
		published++
		if !bytes.Contains(body, []byte(`"code": 0`)) || !bytes.Contains(body, []byte(`"containerCircleStatus"`)) {
			t.Fatalf("%s: not the published shape:\n%s", n, body)
		}
		got, err := normalize.Strict(normcosco.Parse(body, env))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		res, _ := normcosco.Parse(body, env)
		local := 0
		for _, r := range res.Repairs {
			if r.Kind == normalize.RepairLocalTimeAsUTC {
				local++
			}
		}
		if local != len(got) || len(got) == 0 {
			t.Fatalf("%s: %d events, %d local times counted", n, len(got), local)
		}
		want, err := normalize.Strict(normcosco.Parse(call(true, "trackingType=CONTAINER&trackingNo="+n), env))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			found := false
			for _, w := range want {
				if w.EventType == dcsa.EventTypeEquipment && w.EventClassifierCode == dcsa.ClassifierActual && w.EquipmentReference == g.EquipmentReference &&
					w.EquipmentEventTypeCode == g.EquipmentEventTypeCode && w.EmptyIndicatorCode == g.EmptyIndicatorCode && w.EventDateTime[:19] == g.EventDateTime[:19] {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: published %s %s %s %s, which the documented answer has not", n, g.EquipmentReference, g.EquipmentEventTypeCode, g.EmptyIndicatorCode, g.EventDateTime)
			}
		}
	}
	if published == 0 || documented == 0 {
		t.Fatalf("%d published-shape and %d documented-shape shipments: the share is not one in %d", published, documented, deviantOneIn)
	}
}
