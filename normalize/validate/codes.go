package validate

import "strings"

// Enum is one code list of EVENT_DOMAIN 2.0.2 or a domain it references.
// TestEnumsMatchSpec compares every list with the YAML it was copied from.
type Enum struct {
	// Name is the schema property the list constrains, for messages.
	Name   string
	Values []string
}

// Canonical returns the list's own copy of s when s is a member. Parsers
// store that copy so decoded strings are not retained and equal codes share
// memory.
func (e Enum) Canonical(s string) (string, bool) {
	for _, v := range e.Values {
		if v == s {
			return v, true
		}
	}
	return "", false
}

// Has reports whether s is a member.
func (e Enum) Has(s string) bool {
	_, ok := e.Canonical(s)
	return ok
}

// String lists the members, for error messages ("one of LOAD, DISC, …").
func (e Enum) String() string { return strings.Join(e.Values, ", ") }

// The 2.0.2 code lists for the fields contrack emits.
var (
	EventTypes = Enum{"eventType", []string{"EQUIPMENT", "TRANSPORT"}}
	// EventClassifierCodes is the same list for equipment and transport events.
	EventClassifierCodes    = Enum{"eventClassifierCode", []string{"ACT", "PLN", "EST"}}
	EquipmentEventTypeCodes = Enum{"equipmentEventTypeCode", []string{"LOAD", "DISC", "GTIN", "GTOT", "STUF", "STRP", "PICK", "DROP", "INSP", "RSEA", "RMVD"}}
	TransportEventTypeCodes = Enum{"transportEventTypeCode", []string{"ARRI", "DEPA"}}
	EmptyIndicatorCodes     = Enum{"emptyIndicatorCode", []string{"EMPTY", "LADEN"}}
	ModesOfTransport        = Enum{"modeOfTransport", []string{"VESSEL", "RAIL", "TRUCK", "BARGE"}}
	// FacilityTypeCodes is facilityTypeCodeTRN, the list both event kinds use.
	FacilityTypeCodes         = Enum{"facilityTypeCode", []string{"BOCR", "CLOC", "COFS", "COYA", "OFFD", "DEPO", "INTE", "POTE", "RAMP"}}
	FacilityCodeListProviders = Enum{"facilityCodeListProvider", []string{"BIC", "SMDG"}}
	CarrierCodeListProviders  = Enum{"vesselOperatorCarrierCodeListProvider", []string{"SMDG", "NMFTA"}}
	DocumentReferenceTypes    = Enum{"documentReferenceType", []string{"CBR", "BKG", "SHI", "TRD"}}
	ReferenceTypes            = Enum{"referenceType", []string{"FF", "SI", "PO", "CR", "AAO", "ECR", "CSI", "BPR", "BID", "EQ"}}
	SealSources               = Enum{"sealSource", []string{"CAR", "SHI", "PHY", "VET", "CUS"}}
	SealTypes                 = Enum{"sealType", []string{"KLP", "BLT", "WIR"}}
)

// ReferenceTypeEquipment is the reference type that names a container.
const ReferenceTypeEquipment = "EQ"

// Maximum lengths (maxLength) of the 2.0.2 string fields contrack emits.
// Codes and identifiers longer than these are rejected; free text is cut to
// fit (see Truncate).
const (
	MaxEquipmentReference        = 15
	MaxISOEquipmentCode          = 4
	MaxDelayReasonCode           = 3
	MaxChangeRemark              = 250
	MaxTransportCallID           = 100
	MaxTransportCallReference    = 100
	MaxPortVisitReference        = 50
	MaxCarrierServiceCode        = 5
	MaxVoyageNumber              = 50
	MaxUNLocationCode            = 5
	MaxFacilityCode              = 6
	MaxOtherFacility             = 50
	MaxLocationName              = 100
	MaxLatitude                  = 10
	MaxLongitude                 = 11
	MaxVesselIMONumber           = 7
	MaxVesselName                = 35
	MaxVesselFlag                = 2
	MaxVesselCallSignNumber      = 10
	MaxVesselOperatorCarrierCode = 10
	MaxReferenceValue            = 100
	MaxSealNumber                = 15
	MaxCarrierCode               = 4
	MaxAddressName               = 100
	MaxStreet                    = 100
	MaxStreetNumber              = 50
	MaxFloor                     = 50
	MaxPostCode                  = 50
	MaxCity                      = 65
	MaxStateRegion               = 65
	MaxCountry                   = 75
)

// Truncate cuts free text to at most max characters (maxLength counts
// characters, not bytes) without splitting a character.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// RuneLen is the length maxLength measures.
func RuneLen(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// IsUNLocationCode reports whether s has the UN/LOCODE shape: an ISO 3166
// country code and three letters or digits 2-9. The schema only says
// maxLength 5; the shape check catches codes that would silently never match
// a subscription.
func IsUNLocationCode(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
		case i >= 2 && c >= '2' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// IsIMONumber reports whether s is seven digits, the form of an IMO ship
// number. The check digit is not verified: feeders and barges sometimes
// carry registry numbers that fail it, and the number is still the best key.
func IsIMONumber(s string) bool {
	if len(s) != 7 {
		return false
	}
	for i := 0; i < 7; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
