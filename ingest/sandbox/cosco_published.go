package sandbox

import (
	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/cosco"
)

// coscoPublished reports whether COSU answers the shipment in the shape
// COSCO's open API documentation publishes (code 0, status labels, local
// times, free-text places) rather than the documented schemas/cosco one:
// the same share of shipments as the DCSA carriers' deviations (Deviant),
// unless Config.StrictShapes.
func coscoPublished(scac string, kind journey.Kind, value string) bool {
	return scac == "COSU" && deviantShare(scac, kind, value)
}

// coscoLabel is the published status label of an equipment milestone; ""
// for milestones the published shape has no label for (vessel departures
// and arrivals come as legs; rail loads and unloads have none COSCO's
// documentation shows).
func coscoLabel(j journey.Journey, e journey.Event) string {
	switch coscoCode(e) {
	case cosco.EventEmptyPickup:
		return cosco.LabelEmptyDespatched
	case cosco.EventGateIn:
		return cosco.LabelGateInFirstPOL
	case cosco.EventLoad:
		if e.Leg == 0 {
			return cosco.LabelLoadedFirstPOL
		}
		return cosco.LabelLoadedTSPOL
	case cosco.EventDischarge:
		if e.Port.Code == j.POD().Code {
			return cosco.LabelDischargedLastPOD
		}
		return cosco.LabelDischargedTSPOD
	case cosco.EventGateOut:
		return cosco.LabelGateOutLastPOD
	case cosco.EventEmptyReturn:
		return cosco.LabelEmptyReturned
	}
	return ""
}

var coscoTransportation = map[string]string{journey.ModeVessel: cosco.TransportationVessel, journey.ModeRail: cosco.TransportationRail}

// coscoPlace is a published place: "terminal,city,state,country", the
// state empty as COSCO leaves it where there is none.
func coscoPlace(e journey.Event) string {
	name := e.Port.TerminalName
	if e.Facility == journey.FacilityDepot {
		name = e.Port.DepotName()
	}
	return name + "," + e.Port.Name + ",," + e.Port.Country
}

// RenderCOSCOPublished renders a journey as COSCO's published cargo tracking
// answer: by container, its actual statuses newest first; by booking or
// bill of lading, the vessel legs, the booking and each container's latest
// status. Estimates are not in the published shape.
func RenderCOSCOPublished(j journey.Journey) cosco.PublishedResponse {
	type status struct {
		e     journey.Event
		label string
	}
	statuses := make([][]status, len(j.Containers))
	for _, e := range j.Events {
		if e.Type != journey.TypeEquipment || e.Classifier != journey.ACT || e.Container < 0 || e.Container >= len(j.Containers) {
			continue
		}
		if label := coscoLabel(j, e); label != "" {
			statuses[e.Container] = append(statuses[e.Container], status{e, label})
		}
	}
	published := func(ci int, s status) cosco.PublishedStatus {
		mode := coscoTransportation[s.e.Mode]
		if mode == "" {
			mode = cosco.TransportationTruck
		}
		if s.label == cosco.LabelDischargedLastPOD || s.label == cosco.LabelDischargedTSPOD {
			mode = " " // as COSCO sends it on discharges
		}
		return cosco.PublishedStatus{UUID: s.e.ID, ContainerNumber: j.Containers[ci].Number, Status: s.label,
			Location: coscoPlace(s.e), TimeOfIssue: s.e.Time.Format(cosco.PublishedTimeLayout), Transportation: mode}
	}
	resp := cosco.PublishedResponse{Code: "0", Message: "success", Data: &cosco.PublishedData{}}
	content := &cosco.PublishedContent{}
	if j.Kind == journey.KindContainer {
		resp.Data.Type, resp.Data.NumberType = cosco.AnswerContainer, cosco.AnswerContainer
		for ci, c := range j.Containers {
			pc := cosco.PublishedContainer{Container: cosco.PublishedContainerState{ContainerUUID: c.Number, ContainerNumber: c.Number, ContainerType: c.SizeType}}
			for i := len(statuses[ci]) - 1; i >= 0; i-- {
				pc.CircleStatus = append(pc.CircleStatus, published(ci, statuses[ci][i]))
			}
			content.Containers = append(content.Containers, pc)
		}
	} else {
		resp.Data.Type, resp.Data.NumberType = cosco.AnswerBooking, "both"
		if j.Kind == journey.KindBill {
			resp.Data.Type = cosco.AnswerBill
		}
		content.TrackingPath = &cosco.PublishedTrackingPath{BillOfLadingRefCode: j.Booking, TrackingGroupReferenceCode: j.Bill}
		for li, l := range j.Legs {
			if l.Mode != journey.ModeVessel || l.Vessel == nil {
				continue
			}
			leg := cosco.PublishedLeg{VesselName: l.Vessel.Name, VoyageNo: l.Voyage, Service: l.Service,
				PortOfLoading: l.From.Name, PortOfDischarge: l.To.Name}
			for _, e := range j.Events {
				if e.Type != journey.TypeTransport || e.Leg != li {
					continue
				}
				local := e.Time.Format(cosco.PublishedTimeLayout)
				switch {
				case e.Departure && e.Classifier == journey.ACT:
					leg.ActualDepartureDate = local
				case e.Departure:
					leg.ExpectedDateOfDeparture = local
				case e.Classifier == journey.ACT:
					leg.ActualArrivalDate = local
				default:
					leg.EstimatedDateOfArrival = local
				}
			}
			content.ActualShipment = append(content.ActualShipment, leg)
		}
		for ci, c := range j.Containers {
			if len(statuses[ci]) == 0 {
				continue
			}
			s := published(ci, statuses[ci][len(statuses[ci])-1])
			content.ContainerStatus = append(content.ContainerStatus, cosco.PublishedContainerStatus{Label: s.Status,
				Containers: []cosco.PublishedContainerState{{ContainerUUID: c.Number, ContainerNumber: c.Number, ContainerType: c.SizeType,
					Label: s.Status, Location: s.Location, LocationDateTime: s.TimeOfIssue, Transportation: s.Transportation}}})
		}
	}
	resp.Data.Content = content
	return resp
}
