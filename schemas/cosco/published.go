package cosco

import "encoding/json"

// The shape COSCO Shipping Lines' open API documentation publishes for cargo
// tracking (reference/carriers/COSU), which differs from Response: "code" is
// the number 0 on success, data.type says which kind of number answered
// ("bl", "bkg", "cntr", "none"), statuses are English labels
// ("Empty Equipment Returned"), times are local wall times "2006-01-02
// 15:04" with no offset, and places are free text "terminal,city,state,
// country". The documentation prints it with "//" line comments
// (StripComments).

// PublishedCodeOK is the success code of the published shape.
const PublishedCodeOK = 0

// Published answer types (PublishedData.Type).
const (
	AnswerBill      = "bl"
	AnswerBooking   = "bkg"
	AnswerContainer = "cntr"
	AnswerNone      = "none"
)

// PublishedTimeLayout is the layout of the published shape's times (local,
// no offset); some carry seconds (PublishedTimeLayoutSeconds).
const (
	PublishedTimeLayout        = "2006-01-02 15:04"
	PublishedTimeLayoutSeconds = "2006-01-02 15:04:05"
)

// Published statuses (the labels in containerNumberStatus and label).
const (
	LabelEmptyDespatched     = "Empty Equipment Despatched"
	LabelCargoReceived       = "Cargo Received"
	LabelGateInFirstPOL      = "Gate-In at First POL"
	LabelLoadedFirstPOL      = "Loaded at First POL"
	LabelDischargedTSPOD     = "Discharged at T/S POD"
	LabelLoadedTSPOL         = "Loaded at T/S POL"
	LabelDischargedLastPOD   = "Discharged at Last POD"
	LabelGateOutLastPOD      = "Gate-out from Last POD"
	LabelGateInFinalHub      = "Gate-in at Final Hub"
	LabelGateOutFinalHub     = "Gate-out from Final Hub"
	LabelEmptyReturned       = "Empty Equipment Returned"
	TransportationVessel     = "Vessel"
	TransportationTruck      = "Truck"
	TransportationRail       = "Rail"
	TransportationBargeLabel = "Barge"
)

// PublishedResponse is a cargo tracking answer in the published shape.
type PublishedResponse struct {
	// Code is a JSON number: 0 on success.
	Code    json.Number    `json:"code"`
	Message string         `json:"message"`
	Data    *PublishedData `json:"data"`
}

// PublishedData says what answered and carries it; Content is null when
// nothing did (Type "none").
type PublishedData struct {
	Type       string            `json:"type"`
	NumberType string            `json:"numberType"`
	Content    *PublishedContent `json:"content"`
}

// PublishedContent is the answer to one number: by bill of lading or booking
// the legs (ActualShipment), the booking (TrackingPath) and each container's
// latest status (ContainerStatus); by container the container's statuses.
type PublishedContent struct {
	ActualShipment  []PublishedLeg             `json:"actualShipment"`
	TrackingPath    *PublishedTrackingPath     `json:"trackingPath"`
	ContainerStatus []PublishedContainerStatus `json:"containerStatus"`
	Containers      []PublishedContainer       `json:"containers"`
}

// PublishedLeg is one vessel leg of the shipment.
type PublishedLeg struct {
	VesselName              string `json:"vesselName"`
	VoyageNo                string `json:"voyageNo"`
	PortOfLoading           string `json:"portOfLoading"`
	ActualDepartureDate     string `json:"actualDepartureDate"`
	ExpectedDateOfDeparture string `json:"expectedDateOfDeparture"`
	PortOfDischarge         string `json:"portOfDischarge"`
	ActualArrivalDate       string `json:"actualArrivalDate"`
	EstimatedDateOfArrival  string `json:"estimatedDateOfArrival"`
	Service                 string `json:"service"`
	VesselCode              string `json:"vesselCde"`
}

// PublishedTrackingPath is the booking: its numbers and ends.
type PublishedTrackingPath struct {
	// BillOfLadingRefCode is documented as the booking number and
	// TrackingGroupReferenceCode as the bill of lading number.
	BillOfLadingRefCode        string `json:"billOfladingRefCode"`
	TrackingGroupReferenceCode string `json:"trackingGroupReferenceCode"`
	VesselName                 string `json:"vslNme"`
	VoyageNumber               string `json:"voyNumber"`
	POL                        string `json:"pol"`
	POD                        string `json:"pod"`
}

// PublishedContainerStatus groups containers by their latest status.
type PublishedContainerStatus struct {
	Label      string                    `json:"label"`
	Containers []PublishedContainerState `json:"containers"`
}

// PublishedContainerState is a container and its latest status.
type PublishedContainerState struct {
	ContainerUUID    string `json:"containerUuid"`
	ContainerNumber  string `json:"containerNumber"`
	ContainerType    string `json:"containerType"`
	Label            string `json:"label"`
	SealNumber       string `json:"sealNumber"`
	Location         string `json:"location"`
	LocationDateTime string `json:"locationDateTime"`
	Transportation   string `json:"transportation"`
}

// PublishedContainer is a container's statuses, answering a container number.
type PublishedContainer struct {
	CircleStatus []PublishedStatus       `json:"containerCircleStatus"`
	Container    PublishedContainerState `json:"container"`
	Histories    []PublishedStatus       `json:"containerHistorys"`
}

// PublishedStatus is one status of a container.
type PublishedStatus struct {
	UUID            string `json:"uuid"`
	ContainerNumber string `json:"containerNumber"`
	Status          string `json:"containerNumberStatus"`
	Location        string `json:"location"`
	TimeOfIssue     string `json:"timeOfIssue"`
	Transportation  string `json:"transportation"`
}

// StripComments removes "//" line comments outside JSON strings, as COSCO's
// documentation prints its answers, and says how many there were. A body
// without comments is returned unchanged.
func StripComments(raw []byte) ([]byte, int) {
	var out []byte
	n := 0
	inString, escaped := false, false
	last := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(raw) && raw[i+1] == '/':
			if out == nil {
				out = make([]byte, 0, len(raw))
			}
			out = append(out, raw[last:i]...)
			n++
			for i < len(raw) && raw[i] != '\n' {
				i++
			}
			last = i
			i-- // the newline is kept
		}
	}
	if out == nil {
		return raw, 0
	}
	return append(out, raw[last:]...), n
}
