package carriers

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// Carrier inference: which carrier a container, booking or bill number
// belongs to. The prefix tables answer first (GuessCarrier); where they
// name no single carrier — a leasing company's box, an unknown prefix — the
// carriers an account has credentials for are asked, in parallel and
// within a time limit, with that account's own credentials and
// environment. The API's GET /carrier/infer and subscribing without
// scacCode use it; the probe itself is a carrier adapter's shipment
// lookup, which the API is handed as a ShipmentProber.

// ShipmentProber asks one carrier, with an account's credentials, whether it
// knows a shipment. status is ProbeFound when it does, otherwise why not
// (NOT_FOUND, UNAUTHORIZED, ERROR, UNREACHABLE, TIMEOUT: the statuses of
// ingest/carrier's LookupShipment). It returns when ctx ends.
type ShipmentProber interface {
	ProbeShipment(ctx context.Context, env, scac, accountID string, creds map[string]string, kind, value string) (status string, httpCode int)
}

// ProbeFound is the ShipmentProber status of a carrier that knows the shipment.
const ProbeFound = "FOUND"

// InferCandidate is a carrier a number may belong to, and how it was found.
type InferCandidate struct {
	ScacCode string `json:"scacCode"`
	// Method is owner-code, bill-prefix or probe.
	Method string `json:"method"`
	// Detail is the matched prefix, or for a probe why one was needed.
	Detail string `json:"detail"`
}

// InferProbe is one carrier's answer to a probe.
type InferProbe struct {
	ScacCode string `json:"scacCode"`
	// Status is FOUND, NOT_FOUND, UNAUTHORIZED, ERROR, UNREACHABLE, TIMEOUT or
	// PAUSED (the account's calls to the carrier are paused after failures).
	Status   string `json:"status"`
	HTTPCode int    `json:"httpCode"`
}

// Probing is one account's probe of the carriers for one number.
type Probing struct {
	Prober ShipmentProber
	// Env and Account are the caller's: probes use only its credentials,
	// in its environment.
	Env, Account string
	Kind, Value  string
	// Timeout bounds the whole probe; Concurrency the carriers asked at once.
	Timeout     time.Duration
	Concurrency int
}

// ToProbe are the carriers a number whose guess g names no single carrier
// is probed at: those of creds (the account's credentials, by SCAC) in the
// registry and, when the prefix names a few, among them; in SCAC order.
func ToProbe(g Guess, creds map[string]map[string]string) []string {
	var asked []string
	for scac := range creds {
		if _, ok := Lookup(scac); ok && (len(g.Among) == 0 || slices.Contains(g.Among, scac)) {
			asked = append(asked, scac)
		}
	}
	sort.Strings(asked)
	return asked
}

// Probe asks each carrier of asked (ToProbe) with its credentials of creds
// and returns those that know the number as candidates (method probe, the
// detail saying why a probe was needed) and every answer, in asked's order.
// A carrier not asked before the timeout answers TIMEOUT. Candidates is
// never nil. It returns early only when ctx ends (its error then).
func (p Probing) Probe(ctx context.Context, g Guess, asked []string, creds map[string]map[string]string) ([]InferCandidate, []InferProbe, error) {
	probed := make([]InferProbe, len(asked))
	pctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	sem := make(chan struct{}, max(p.Concurrency, 1))
	var wg sync.WaitGroup
	for i, scac := range asked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-pctx.Done(): // never started: out of time
				probed[i] = InferProbe{ScacCode: scac, Status: "TIMEOUT"}
				return
			}
			status, code := p.Prober.ProbeShipment(pctx, p.Env, scac, p.Account, creds[scac], p.Kind, p.Value)
			probed[i] = InferProbe{ScacCode: scac, Status: status, HTTPCode: code}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil { // the caller went away
		return nil, nil, err
	}
	why := "no known prefix"
	switch {
	case g.Ambiguous:
		why = g.Prefix + " (" + g.Brand + ")"
	case p.Kind == "container":
		why = g.Prefix + " (owner code in no table)"
	}
	candidates := []InferCandidate{}
	for _, pr := range probed {
		if pr.Status == ProbeFound {
			candidates = append(candidates, InferCandidate{ScacCode: pr.ScacCode, Method: MethodProbe, Detail: why + ": the carrier knows the shipment"})
		}
	}
	return candidates, probed, nil
}
