package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// TypeVesselPosition is the HeaderType of vessel position records.
const TypeVesselPosition = "vessel.position"

// AIS navigational status codes (ITU-R M.1371, message 1-3), the ones
// container ships report.
const (
	NavUnderWayEngine = 0
	NavAtAnchor       = 1
	NavMoored         = 5
	NavUndefined      = 15
)

// VesselPosition is one position report of a vessel, AIS-style, on the
// vessel positions topic keyed by Key(). Positions are public data (every
// ship broadcasts them): they carry no account, only the environment whose
// journeys they serve — a sandbox vessel is simulated and must never be
// mistaken for a real ship with the same IMO number.
type VesselPosition struct {
	Env string `json:"env"` // EnvLive or EnvSandbox
	// IMO is the vessel's seven-digit IMO number.
	IMO string `json:"imo"`
	// Voyage is the carrier voyage number the report belongs to, when the
	// source knows it: the sandbox does (its carriers' fleets reuse a few
	// ship names, each journey on its own schedule, so a sandbox ship is
	// one IMO number on one voyage); AIS does not ("" for live reports).
	Voyage string    `json:"voyage,omitempty"`
	At     time.Time `json:"at"` // when the vessel was there (UTC)
	Lat    float64   `json:"lat"`
	Lon    float64   `json:"lon"`
	// SpeedKnots is the speed over ground; Course the course over ground in
	// degrees from true north, [0, 360).
	SpeedKnots float64 `json:"speedKnots"`
	Course     float64 `json:"course"`
	// NavStatus is the AIS navigational status (Nav* constants; 15 undefined).
	NavStatus int `json:"navStatus"`
	// Source names where it came from: "sandbox" or the provider.
	Source string `json:"source"`
}

// Key is the record key: the environment, the IMO number and the voyage,
// so one vessel's reports stay in order on one partition.
func (p VesselPosition) Key() string { return p.Env + "/" + p.IMO + "/" + p.Voyage }

// ID identifies a report: a report repeated (a provider answering the same
// fix twice, a producer retry) has the same id, and the positions table
// folds the repeats.
func (p VesselPosition) ID() string {
	return fmt.Sprintf("%s/%d", p.Key(), p.At.UTC().Unix())
}

// Validate reports a report no consumer can use.
func (p VesselPosition) Validate() error {
	var errs []error
	if p.Env != EnvLive && p.Env != EnvSandbox {
		errs = append(errs, fmt.Errorf("env %q is not live or sandbox", p.Env))
	}
	if !ValidIMO(p.IMO) {
		errs = append(errs, fmt.Errorf("imo %q is not a seven-digit IMO number with its check digit", p.IMO))
	}
	if p.At.IsZero() {
		errs = append(errs, errors.New("no time"))
	}
	if math.IsNaN(p.Lat) || p.Lat < -90 || p.Lat > 90 || math.IsNaN(p.Lon) || p.Lon < -180 || p.Lon > 180 {
		errs = append(errs, fmt.Errorf("position %v, %v out of range", p.Lat, p.Lon))
	}
	if math.IsNaN(p.SpeedKnots) || p.SpeedKnots < 0 || p.SpeedKnots > 102.2 { // AIS: 102.2 means "102.2 or more"
		errs = append(errs, fmt.Errorf("speed %v knots out of range", p.SpeedKnots))
	}
	if math.IsNaN(p.Course) || p.Course < 0 || p.Course >= 360 {
		errs = append(errs, fmt.Errorf("course %v out of range", p.Course))
	}
	if p.NavStatus < 0 || p.NavStatus > 15 {
		errs = append(errs, fmt.Errorf("navigational status %d out of range", p.NavStatus))
	}
	return errors.Join(errs...)
}

// ValidIMO says s is a seven-digit IMO number whose last digit is its
// check digit (the first six weighted 7 to 2, summed, modulo 10).
func ValidIMO(s string) bool {
	if len(s) != 7 {
		return false
	}
	sum := 0
	for i := 0; i < 7; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		if i < 6 {
			sum += int(c-'0') * (7 - i)
		}
	}
	return sum%10 == int(s[6]-'0')
}

// Marshal encodes the report as its record value (JSON).
func (p VesselPosition) Marshal() ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("vessel position %s: %w", p.Key(), err)
	}
	return b, nil
}

// DecodeVesselPosition decodes a record value and validates it.
func DecodeVesselPosition(b []byte) (VesselPosition, error) {
	var p VesselPosition
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("vessel position: %w", err)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("vessel position %s: %w", p.Key(), err)
	}
	return p, nil
}
