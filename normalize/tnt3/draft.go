package tnt3

import (
	"encoding/json"
	"strconv"

	"github.com/contrack/contrack/normalize"
	"github.com/contrack/contrack/schemas/tnt3"
)

// draftEvent holds the members a TNT 3.0 event had in drafts before 3.0.0
// (DCSA's first 3.0 samples, reference/carriers/DCSA/*-2026-01-21): a flat
// transport call with transportCallID, carrierServiceCode and voyage
// numbers and its vessel under "vessel", and a position flat in
// eventLocation, and a reefer probe's reading as probeNumber and
// temperature. 3.0.0 names none of them, so they cannot clash.
type draftEvent struct {
	EventLocation *struct {
		Latitude  string `json:"latitude"`
		Longitude string `json:"longitude"`
	} `json:"eventLocation"`
	TransportDetails *struct {
		TransportCall *struct {
			TransportCallID    string `json:"transportCallID"`
			CarrierServiceCode string `json:"carrierServiceCode"`
			ExportVoyageNumber string `json:"exportVoyageNumber"`
			ImportVoyageNumber string `json:"importVoyageNumber"`
			Vessel             *struct {
				VesselIMONumber      string `json:"vesselIMONumber"`
				VesselName           string `json:"vesselName"`
				VesselFlag           string `json:"vesselFlag"`
				VesselCallSignNumber string `json:"vesselCallSignNumber"`
			} `json:"vessel"`
		} `json:"transportCall"`
	} `json:"transportDetails"`
	ReeferDetails *struct {
		TemperatureProbeMeasurements []struct {
			ProbeNumber *json.Number `json:"probeNumber"`
			Temperature *float64     `json:"temperature"`
		} `json:"temperatureProbeMeasurements"`
	} `json:"reeferDetails"`
}

// readDraftMembers reads into s the pre-3.0.0 members of body that s lacks
// under their 3.0.0 names, each counted (normalize.RepairDraftMember): a
// value a carrier sends under an older name is read, not dropped.
func (m *mapper) readDraftMembers(body []byte, s *tnt3.Event) {
	var d draftEvent
	if json.Unmarshal(body, &d) != nil {
		return // a value of another type: the 3.0.0 reading stands alone
	}
	repair := func(path string) {
		m.repairs = append(m.repairs, normalize.Repair{Kind: normalize.RepairDraftMember, Path: path})
	}
	if l := d.EventLocation; l != nil && (l.Latitude != "" || l.Longitude != "") && s.EventLocation != nil && s.EventLocation.GeoCoordinate == nil {
		s.EventLocation.GeoCoordinate = &tnt3.GeoCoordinate{Latitude: l.Latitude, Longitude: l.Longitude}
		repair("eventLocation.latitude")
	}
	if r := d.ReeferDetails; r != nil && s.ReeferDetails != nil && len(r.TemperatureProbeMeasurements) == len(s.ReeferDetails.TemperatureProbeMeasurements) {
		for i, dp := range r.TemperatureProbeMeasurements {
			p := &s.ReeferDetails.TemperatureProbeMeasurements[i]
			at := "reeferDetails.temperatureProbeMeasurements[" + strconv.Itoa(i) + "]."
			if dp.Temperature != nil && p.MeasuredTemperatureValue == nil {
				p.MeasuredTemperatureValue = dp.Temperature
				repair(at + "temperature")
			}
			if dp.ProbeNumber != nil && p.ProbeLabel == "" && p.USDAProbeNumber == nil && p.COAProbeUDMKey == "" {
				p.ProbeLabel = dp.ProbeNumber.String()
				repair(at + "probeNumber")
			}
		}
	}
	if d.TransportDetails == nil || d.TransportDetails.TransportCall == nil || s.TransportDetails == nil || s.TransportDetails.TransportCall == nil {
		return
	}
	dc, call := d.TransportDetails.TransportCall, s.TransportDetails.TransportCall
	const at = "transportDetails.transportCall."
	if dc.TransportCallID != "" && call.TransportCallReference == "" {
		call.TransportCallReference = dc.TransportCallID
		repair(at + "transportCallID")
	}
	if dc.CarrierServiceCode != "" && call.ServiceCodeOrReference == nil {
		call.ServiceCodeOrReference = &tnt3.ServiceCodeOrReference{CarrierServiceCode: dc.CarrierServiceCode}
		repair(at + "carrierServiceCode")
	}
	if dc.ExportVoyageNumber != "" && call.ExportVoyageNumberOrReference == nil {
		call.ExportVoyageNumberOrReference = &tnt3.VoyageNumberOrReference{CarrierVoyageNumber: dc.ExportVoyageNumber}
		repair(at + "exportVoyageNumber")
	}
	if dc.ImportVoyageNumber != "" && call.ImportVoyageNumberOrReference == nil {
		call.ImportVoyageNumberOrReference = &tnt3.VoyageNumberOrReference{CarrierVoyageNumber: dc.ImportVoyageNumber}
		repair(at + "importVoyageNumber")
	}
	if v := dc.Vessel; v != nil && call.VesselTransport == nil {
		call.VesselTransport = &tnt3.VesselTransport{VesselIMONumber: v.VesselIMONumber, VesselName: v.VesselName,
			VesselFlag: v.VesselFlag, VesselCallSign: v.VesselCallSignNumber}
		repair(at + "vessel")
	}
}
