package sandbox

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/contrack/contrack/ingest/sandbox/journey"
)

// deviantOneIn: one shipment in this many gets, from a DCSA
// TNT 2.2 sandbox carrier, the deviations its real API was seen to send
// (docs/normalize.md, "Deviations handled"), chosen by
// the shipment's number, so the same shipment always deviates alike.
const deviantOneIn = 3

// Deviant reports whether scac's sandbox answers for the shipment carry
// its carrier's deviations (unless Config.StrictShapes).
func Deviant(scac string, kind journey.Kind, value string) bool {
	if _, ok := tnt22Deviations[scac]; !ok {
		return coscoPublished(scac, kind, value)
	}
	return deviantShare(scac, kind, value)
}

// deviantShare picks one shipment in deviantOneIn by its number.
func deviantShare(scac string, kind journey.Kind, value string) bool {
	h := fnv.New32a()
	_, _ = h.Write([]byte(scac + "|" + string(kind) + "|" + strings.ToUpper(strings.TrimSpace(value))))
	return h.Sum32()%deviantOneIn == 0
}

// tnt22Deviations are what each carrier's real TNT 2.x answers were seen to
// do, applied to an encoded page (an array of events); each returns the
// body to send.
var tnt22Deviations = map[string]func(events []map[string]any) any{
	// MSC spells UNLocationCode, eventID and transportCallID otherwise.
	"MSCU": func(events []map[string]any) any {
		for _, ev := range events {
			renameAll(ev, map[string]string{"UNLocationCode": "unLocationCode", "eventID": "eventId", "transportCallID": "transportCallId"})
		}
		return events
	},
	// Maersk wraps the array in {"events": [...]}, with hash ids.
	"MAEU": func(events []map[string]any) any {
		for _, ev := range events {
			if id, ok := ev["eventID"].(string); ok {
				sum := sha1.Sum([]byte(id))
				ev["eventID"] = hex.EncodeToString(sum[:])
			}
		}
		return map[string]any{"events": events}
	},
	// CMA CGM prefixes terminal codes with the port's UN/LOCODE.
	"CMDU": func(events []map[string]any) any {
		for _, ev := range events {
			for _, key := range []string{"transportCall", "eventLocation"} {
				if o, ok := ev[key].(map[string]any); ok {
					prefixFacility(o)
				}
			}
		}
		return events
	},
	// Hapag-Lloyd sends seals without their type.
	"HLCU": func(events []map[string]any) any {
		for _, ev := range events {
			if seals, ok := ev["seals"].([]any); ok {
				for _, s := range seals {
					if m, ok := s.(map[string]any); ok {
						delete(m, "sealType")
					}
				}
			}
		}
		return events
	},
	// Evergreen and HMM send IMO numbers as JSON numbers.
	"EGLV": imoAsNumber,
	"HDMU": imoAsNumber,
}

// deviate re-encodes page as scac's real API would send it.
func deviate(scac string, page []tnt22Event) (any, error) {
	b, err := json.Marshal(page)
	if err != nil {
		return nil, err
	}
	var events []map[string]any
	if err := json.Unmarshal(b, &events); err != nil {
		return nil, err
	}
	return tnt22Deviations[scac](events), nil
}

// renameAll renames the members of v, at any depth.
func renameAll(v any, names map[string]string) {
	switch o := v.(type) {
	case map[string]any:
		for from, to := range names {
			if x, ok := o[from]; ok {
				delete(o, from)
				o[to] = x
			}
		}
		for _, x := range o {
			renameAll(x, names)
		}
	case []any:
		for _, x := range o {
			renameAll(x, names)
		}
	}
}

// prefixFacility writes a transport call's or location's facility code as
// its UN/LOCODE followed by the terminal code.
func prefixFacility(o map[string]any) {
	code, _ := o["facilityCode"].(string)
	loc, _ := o["UNLocationCode"].(string)
	if code != "" && loc != "" && !strings.HasPrefix(code, loc) {
		o["facilityCode"] = loc + code
	}
}

func imoAsNumber(events []map[string]any) any {
	for _, ev := range events {
		tc, _ := ev["transportCall"].(map[string]any)
		v, _ := tc["vessel"].(map[string]any)
		if imo, ok := v["vesselIMONumber"].(string); ok {
			if n, err := strconv.Atoi(imo); err == nil {
				v["vesselIMONumber"] = n
			}
		}
	}
	return events
}
