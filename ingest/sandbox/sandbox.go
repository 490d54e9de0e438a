// Package sandbox simulates every supported carrier's tracking API over
// HTTP: the same paths, authentication (API-key headers, token endpoints,
// COSCO's HMAC signatures), formats (DCSA TNT 3.0, 2.2 and 1.2 JSON, EDIFACT
// IFTSTA, COSCO JSON), cursor pagination and error bodies as the carriers
// document, each under its own path prefix (/maeu, /hlcu, …, /cosu). An
// adapter pointed at http://<sandbox>/<scac in lower case> cannot tell it
// from the carrier.
//
// Every answer is rendered from one journey generator (package journey), so
// any container, booking or bill number has a deterministic, realistic
// journey revealed over (optionally accelerated) time. Test numbers force
// outcomes (401, 404, 503, slow answers, many pages): see docs/sandbox.md
// and Special.
//
// The sandbox accepts any credentials except the documented bad values:
// a credential equal to "invalid" is rejected (401) and one equal to "down"
// makes the carrier answer 503, so sandbox keys work whatever is stored.
package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/contrack/contrack/ingest/sandbox/journey"
	"github.com/contrack/contrack/schemas/carriers"
)

// Config configures the simulated carriers. The zero value is usable.
type Config struct {
	// Clock is the wall clock; default time.Now. Token expiry and COSCO's
	// date check use it directly, journeys through Accelerate.
	Clock func() time.Time
	// Epoch is where accelerated journey time and wall time coincide;
	// default journey.Epoch (2026-01-01T00:00:00Z). With a large Accelerate
	// set it close to the present, or journey dates run decades ahead.
	Epoch time.Time
	// Accelerate makes journey time run this many times faster than wall
	// time from Epoch; default 1 (journeys in real time).
	Accelerate float64
	// PageSize caps a DCSA TNT 2.2 or 3.0 page (a smaller limit parameter lowers it); default 20.
	PageSize int
	// SlowDelay is how long a slow test number (prefix SLOU) waits before
	// answering; default 3s. The wait ends early when the client goes away.
	SlowDelay time.Duration
	// TokenTTL is the lifetime of issued access tokens (MSCU, ONEY, EGLV); default 1h.
	TokenTTL time.Duration
	// StrictShapes makes every answer exactly as the standard documents it.
	// By default a share of the DCSA TNT 2.2 carriers' answers (one
	// shipment in three, by number: Deviant) carries the deviations that
	// carrier's real API was seen to send — member names in another case,
	// an {"events": [...]} envelope and hash ids, UN/LOCODE-prefixed
	// facility codes, seals without a type, IMO numbers as JSON numbers —
	// and the same share of COSU's is answered in the shape COSCO's open
	// API documentation publishes (code 0, status labels, local times,
	// free-text places), so everything downstream meets them every day.
	StrictShapes bool
	// CoscoClients maps COSU clientIds to their secrets. Signatures of these
	// clients are verified in full; other clientIds get every check but the
	// MAC itself (the sandbox cannot know an arbitrary client's secret).
	CoscoClients map[string]string
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	var errs []error
	if c.Accelerate < 0 {
		errs = append(errs, errors.New("sandbox: Accelerate must not be negative"))
	}
	if c.PageSize < 0 {
		errs = append(errs, errors.New("sandbox: PageSize must not be negative"))
	}
	if c.SlowDelay < 0 {
		errs = append(errs, errors.New("sandbox: SlowDelay must not be negative"))
	}
	if c.TokenTTL < 0 {
		errs = append(errs, errors.New("sandbox: TokenTTL must not be negative"))
	}
	return errors.Join(errs...)
}

// WithDefaults returns c with every zero field set to its documented default;
// NewHandler applies it, so a zero Config is a valid one.
func (c Config) WithDefaults() Config {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Epoch.IsZero() {
		c.Epoch = journey.Epoch
	}
	if c.Accelerate == 0 {
		c.Accelerate = 1
	}
	if c.PageSize == 0 {
		c.PageSize = 20
	}
	if c.SlowDelay == 0 {
		c.SlowDelay = 3 * time.Second
	}
	if c.TokenTTL == 0 {
		c.TokenTTL = time.Hour
	}
	return c
}

// Bad credential values, in any credential field.
const (
	CredentialInvalid = "invalid" // → 401
	CredentialDown    = "down"    // → 503
)

// Special is the outcome a test number forces.
type Special string

// Test number behaviours, chosen by the identifier's first four characters
// (case-insensitive) whatever its kind. The prefixes end in U, so they start
// ISO 6346-valid container numbers (see docs/sandbox.md for full numbers).
const (
	SpecialNone         Special = ""
	SpecialUnauthorized Special = "UNAU" // 401
	SpecialForbidden    Special = "FRBU" // 403
	SpecialNotFound     Special = "NOFU" // 404, or an empty 200, as that carrier does
	SpecialDown         Special = "DWNU" // 503 with Retry-After
	SpecialServerError  Special = "ERRU" // 500
	SpecialRateLimited  Special = "LMTU" // 429 with Retry-After
	SpecialSlow         Special = "SLOU" // normal answer after Config.SlowDelay
	SpecialManyPages    Special = "PAGU" // 3 containers, 2 transshipments, TNT 2.2 pages of 2 events
	// SpecialRetracted numbers get, from a TNT 3.0 carrier, an actual
	// discharge at a port never called, an hour after the first departure,
	// retracted six hours later (WrongReport); other carriers answer them
	// normally.
	SpecialRetracted Special = "RTRU"
	// SpecialHold numbers get, from a TNT 3.0 carrier, a customs hold
	// after the discharge at the port of discharge, its release and then
	// the box available for pick-up (Terminal); other carriers answer
	// them normally.
	SpecialHold Special = "HLDU"
	// SpecialRolled numbers are planned on another vessel and voyage until
	// 72 hours before the first departure, then rolled onto the vessel
	// they sail on (Rolled), with every carrier.
	SpecialRolled Special = "RLDU"
)

// SpecialOf returns the behaviour a number forces.
func SpecialOf(value string) Special {
	v := strings.ToUpper(strings.TrimSpace(value))
	if len(v) < 4 {
		return SpecialNone
	}
	switch s := Special(v[:4]); s {
	case SpecialUnauthorized, SpecialForbidden, SpecialNotFound, SpecialDown,
		SpecialServerError, SpecialRateLimited, SpecialSlow, SpecialManyPages, SpecialRetracted, SpecialHold, SpecialRolled:
		return s
	}
	return SpecialNone
}

// server holds one sandbox's state: its config and token signing key.
type server struct {
	cfg      Config
	tokenKey []byte
}

// NewHandler returns the simulated carriers. It panics on an invalid Config
// (call Config.Validate first when the values come from outside).
func NewHandler(cfg Config) http.Handler {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	s := &server{cfg: cfg.WithDefaults(), tokenKey: randomKey()}
	mux := http.NewServeMux()

	// DCSA TNT 2.2 carriers, each on its own documented path and auth.
	mux.Handle("GET /maeu/track-and-trace-private/events", s.tnt22("MAEU", s.headerAuth("Consumer-Key")))
	mux.Handle("GET /hlcu/hlag/external/v2/events", s.tnt22("HLCU", s.headerAuth("X-IBM-Client-Id", "X-IBM-Client-Secret")))
	mux.Handle("GET /cmdu/operation/trackandtrace/v1/events", s.tnt22("CMDU", s.headerAuth("KeyId")))
	mux.Handle("POST /eglv/api/v1/auth/token", http.HandlerFunc(s.evergreenToken))
	mux.Handle("GET /eglv/api/tnt/v2/events", s.tnt22("EGLV", s.bearerAuth("EGLV")))
	mux.Handle("POST /mscu/oauth2/token", s.oauth2Token("MSCU"))
	mux.Handle("GET /mscu/track-and-trace/v2/events", s.tnt22("MSCU", s.bearerAuth("MSCU")))
	mux.Handle("GET /hdmu/tnt/v2/events", s.tnt22("HDMU", s.headerAuth("x-api-key")))
	// DCSA TNT 1.2.
	mux.Handle("POST /oney/oauth/token", s.oauth2Token("ONEY"))
	mux.Handle("GET /oney/tnt/v1/events", s.tnt12("ONEY", s.bearerAuth("ONEY")))
	// EDIFACT IFTSTA from an EDI mailbox.
	mux.Handle("GET /oolu/edi/mailbox/iftsta", s.iftsta("OOLU", s.headerAuth("apiKey")))
	// COSCO's own JSON, HMAC-signed requests.
	mux.Handle("GET /cosu/tracking/v1/cargoTracking", s.cosco("COSU"))
	// DCSA TNT 3.0: GET /events at the producer's base URL.
	mux.Handle("POST /zimu/oauth2/token", s.oauth2Token("ZIMU"))
	mux.Handle("GET /zimu/events", s.tnt3("ZIMU", s.bearerAuth("ZIMU")))
	return mux
}

// journeyNow maps the wall clock to accelerated journey time.
func (s *server) journeyNow() time.Time { return s.cfg.JourneyNow() }

// JourneyNow is the sandbox journeys' present: the wall clock, accelerated
// from Epoch. Call it on a Config with its defaults applied.
func (c Config) JourneyNow() time.Time {
	wall := c.Clock()
	if c.Accelerate == 1 {
		return wall
	}
	return c.Epoch.Add(time.Duration(float64(wall.Sub(c.Epoch)) * c.Accelerate))
}

func (s *server) journey(scac string, kind journey.Kind, value string, now time.Time) journey.Journey {
	return shipment(scac, kind, value, now)
}

func shipment(scac string, kind journey.Kind, value string, now time.Time) journey.Journey {
	var opts journey.Options
	if SpecialOf(value) == SpecialManyPages {
		opts = journey.Options{Containers: 3, MinTransshipments: 2}
	}
	j := journey.GenerateWith(scac, kind, value, now, opts)
	if SpecialOf(value) == SpecialRolled {
		j = roll(j)
	}
	return j
}

// Shipment is the journey the sandbox carrier scac shows for the number at
// journey time now, as its API answers it; false when it answers none (a
// test number that fails, a leased container it does not carry).
func Shipment(scac string, kind journey.Kind, value string, now time.Time) (journey.Journey, bool) {
	if kind == journey.KindContainer {
		if carrier, leased := LeasedTo(value); leased && carrier != scac {
			return journey.Journey{}, false
		}
	}
	if sp := SpecialOf(value); sp != SpecialNone && sp != SpecialSlow && sp != SpecialManyPages && sp != SpecialHold && sp != SpecialRolled {
		return journey.Journey{}, false
	}
	return shipment(scac, kind, value, now), true
}

// failure is how a carrier says no; each format renders it its own way.
type failure struct {
	status     int
	reason     string // machine-readable, e.g. "unauthorized"
	message    string
	retryAfter string
}

func (f *failure) Error() string { return fmt.Sprintf("%d %s: %s", f.status, f.reason, f.message) }

var (
	errNotFound = &failure{status: http.StatusNotFound, reason: "notFound", message: "No events found for the given reference"}
)

// LeasedTo returns the one sandbox carrier that knows a leased container: a
// container number (four letters, seven digits) whose owner code the
// inference tables (schemas/carriers) mark ambiguous, as leasing companies'
// are. It is the registered carrier at position serial mod carriers in SCAC
// order (serial: the six digits after the owner code), so TGHU0000055
// (serial 5) is on the sixth carrier's (MAEU) shipment. Every other sandbox carrier answers such a
// container as not found, as real carriers answer boxes they do not carry:
// carrier inference can then find the one that knows it. ok is false for any
// other number, which every sandbox carrier knows.
func LeasedTo(value string) (scac string, ok bool) {
	v := strings.ToUpper(strings.TrimSpace(value))
	if len(v) != 11 || strings.Trim(v[4:], "0123456789") != "" {
		return "", false
	}
	if g := carriers.GuessCarrier("container", v); !g.Ambiguous {
		return "", false
	}
	serial, err := strconv.Atoi(v[4:10])
	if err != nil {
		return "", false
	}
	all := carriers.All()
	return all[serial%len(all)].SCAC, true
}

// special applies a test number's forced outcome, and the one-carrier rule
// of leased containers (LeasedTo): it returns a failure to render, or nil to
// answer normally (after waiting, for slow numbers).
func (s *server) special(r *http.Request, scac string, kind journey.Kind, value string) *failure {
	if kind == journey.KindContainer {
		if carrier, leased := LeasedTo(value); leased && carrier != scac {
			return errNotFound
		}
	}
	switch SpecialOf(value) {
	case SpecialUnauthorized:
		return &failure{status: http.StatusUnauthorized, reason: "unauthorized", message: "The credentials are not authorised for this shipment"}
	case SpecialForbidden:
		return &failure{status: http.StatusForbidden, reason: "forbidden", message: "Access to this shipment is forbidden"}
	case SpecialNotFound:
		return errNotFound
	case SpecialDown:
		return &failure{status: http.StatusServiceUnavailable, reason: "serviceUnavailable", message: "The service is temporarily unavailable", retryAfter: "120"}
	case SpecialServerError:
		return &failure{status: http.StatusInternalServerError, reason: "internalError", message: "An unexpected error occurred"}
	case SpecialRateLimited:
		return &failure{status: http.StatusTooManyRequests, reason: "tooManyRequests", message: "Rate limit exceeded", retryAfter: "30"}
	case SpecialSlow:
		t := time.NewTimer(s.cfg.SlowDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
	}
	return nil
}

// credentialFailure maps the documented bad credential values.
func credentialFailure(values ...string) *failure {
	for _, v := range values {
		switch v {
		case CredentialInvalid:
			return &failure{status: http.StatusUnauthorized, reason: "unauthorized", message: "Invalid credentials"}
		case CredentialDown:
			return &failure{status: http.StatusServiceUnavailable, reason: "serviceUnavailable", message: "The service is temporarily unavailable", retryAfter: "120"}
		}
	}
	for _, v := range values {
		if v == "" {
			return &failure{status: http.StatusUnauthorized, reason: "unauthorized", message: "Missing credentials"}
		}
	}
	return nil
}
