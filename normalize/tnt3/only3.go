package tnt3

import (
	"encoding/json"
	"strconv"

	"github.com/contrack/contrack/normalize/validate"
	"github.com/contrack/contrack/schemas/dcsa"
	"github.com/contrack/contrack/schemas/tnt3"
)

// 3.0's code lists of the event types EVENT_DOMAIN 2.0.2 lacks
// (reference/dcsa/TNT_v3.0.0.yaml).
var (
	shipmentEventTypeCodes = validate.Enum{Name: "shipmentEventTypeCode", Values: []string{
		"AMCF", "AMCN", "AMDC", "AMPR", "AMRE", "APPR", "CACF", "CADC", "CANC", "CARE", "CMPL", "CONF", "DECL", "DRFT",
		"HOLD", "ISSU", "PENA", "PENM", "PENU", "PSAM", "PSDL", "RECE", "REJE", "RELS", "REQS", "SUAM", "SUBM", "SUDL",
		"SURR", "UPCF", "UPCN", "UPDC", "UPDT", "UPRE", "VOID"}}
	iotEventTypeCodes    = validate.Enum{Name: "iotEventTypeCode", Values: []string{"DETC"}}
	iotEventCodes        = validate.Enum{Name: "iotEventCode", Values: []string{"DRC", "DRO", "LOC"}}
	reeferEventTypeCodes = validate.Enum{Name: "reeferEventTypeCode", Values: []string{"MEAS", "ADJU"}}
	temperatureUnits     = validate.Enum{Name: "temperatureUnit", Values: []string{"CEL", "FAH"}}
	airExchangeUnits     = validate.Enum{Name: "airExchangeUnit", Values: []string{"MQH", "FQH"}}
	coaProbeKeys         = validate.Enum{Name: "COAProbeUDMKey", Values: []string{"P19", "P20", "P21", "P22"}}
)

// maxProbeLabel bounds a probe's free-text label (3.0 sets no length).
const maxProbeLabel = 100

// threeOnly reads what a SHIPMENT, IOT or REEFER event (ev.EventType) has
// beyond 2.0.2's fields into ev.TNT3: its type code, required and one of
// 3.0's (in any letter case), and its IoT or reefer details, whose codes
// must be 3.0's. The rest of the event is read as an equipment event's.
func threeOnly(s *tnt3.Event, ev *dcsa.Event) result {
	c := s.EventClassification
	t := &dcsa.TNT3{}
	var ok bool
	switch ev.EventType {
	case dcsa.EventTypeShipment:
		if t.ShipmentEventTypeCode, ok = shipmentEventTypeCodes.Canonical(c.ShipmentEventTypeCode); !ok {
			return refuse(".eventClassification.shipmentEventTypeCode", mustBe(c.ShipmentEventTypeCode, shipmentEventTypeCodes))
		}
	case dcsa.EventTypeIoT:
		if t.IotEventTypeCode, ok = iotEventTypeCodes.Canonical(c.IotEventTypeCode); !ok {
			return refuse(".eventClassification.iotEventTypeCode", mustBe(c.IotEventTypeCode, iotEventTypeCodes))
		}
		if d := s.IotDetails; d != nil && d.IotEventCode != "" {
			code, ok := iotEventCodes.Canonical(d.IotEventCode)
			if !ok {
				return refuse(".iotDetails.iotEventCode", mustBe(d.IotEventCode, iotEventCodes))
			}
			t.IotDetails, _ = json.Marshal(tnt3.IotDetails{IotEventCode: code})
		}
	case dcsa.EventTypeReefer:
		if t.ReeferEventTypeCode, ok = reeferEventTypeCodes.Canonical(c.ReeferEventTypeCode); !ok {
			return refuse(".eventClassification.reeferEventTypeCode", mustBe(c.ReeferEventTypeCode, reeferEventTypeCodes))
		}
		if d := s.ReeferDetails; d != nil {
			r, res := reefer(*d)
			if res.refused != nil {
				return res
			}
			if r.TemperatureUnit != "" || r.InternalSetpointTemperature != nil || r.AmbientMeasuredTemperature != nil ||
				r.TemperatureProbeMeasurements != nil || r.SetpointParameters != nil || r.MeasuredParameters != nil {
				t.ReeferDetails, _ = json.Marshal(r)
			}
		}
	}
	ev.TNT3 = t
	return result{}
}

// reefer checks a reefer's details: its units and probe keys must be 3.0's
// (a temperature in an unknown unit says nothing); a temperature without
// a unit is refused for the same reason.
func reefer(d tnt3.ReeferDetails) (tnt3.ReeferDetails, result) {
	hasTemperature := d.InternalSetpointTemperature != nil || d.AmbientMeasuredTemperature != nil
	for _, p := range d.TemperatureProbeMeasurements {
		hasTemperature = hasTemperature || p.MeasuredTemperatureValue != nil
	}
	if d.TemperatureUnit != "" || hasTemperature {
		u, ok := temperatureUnits.Canonical(d.TemperatureUnit)
		if !ok {
			return d, refuse(".reeferDetails.temperatureUnit", mustBe(d.TemperatureUnit, temperatureUnits))
		}
		d.TemperatureUnit = u
	}
	probes := make([]tnt3.TemperatureProbeMeasurement, 0, len(d.TemperatureProbeMeasurements))
	for i, p := range d.TemperatureProbeMeasurements {
		if p.COAProbeUDMKey != "" {
			k, ok := coaProbeKeys.Canonical(p.COAProbeUDMKey)
			if !ok {
				return d, refuse(".reeferDetails.temperatureProbeMeasurements["+strconv.Itoa(i)+"].COAProbeUDMKey", mustBe(p.COAProbeUDMKey, coaProbeKeys))
			}
			p.COAProbeUDMKey = k
		}
		p.ProbeLabel = validate.Truncate(p.ProbeLabel, maxProbeLabel)
		probes = append(probes, p)
	}
	d.TemperatureProbeMeasurements = nil
	if len(probes) > 0 {
		d.TemperatureProbeMeasurements = probes
	}
	for _, np := range []struct {
		name string
		p    *tnt3.ReeferParameters
	}{{"setpointParameters", d.SetpointParameters}, {"measuredParameters", d.MeasuredParameters}} {
		name, p := np.name, np.p
		if p == nil || p.AirExchangeUnit == "" && p.AirExchangeValue == nil {
			continue
		}
		u, ok := airExchangeUnits.Canonical(p.AirExchangeUnit)
		if !ok {
			return d, refuse(".reeferDetails."+name+".airExchangeUnit", mustBe(p.AirExchangeUnit, airExchangeUnits))
		}
		p.AirExchangeUnit = u
	}
	return d, result{}
}
