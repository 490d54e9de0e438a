package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/contrack/contrack/commandapi"
	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/ingest/poller"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas/carriers"
)

// adapters picks a carrier adapter: sandbox keys' trackings go to the sandbox
// carriers, live ones to CONTRACK_CARRIER_URL_<SCAC>.
func adapters(cfg Config) poller.AdapterFor {
	return poller.SandboxAdapters("http://"+cfg.SandboxAddr, func(scac string) string { return cfg.CarrierURLs[scac] })
}

// carrierGates are the process's carrier gates: one set for the poller and
// the API's probes when a process runs both. openInfra makes them; an infra
// built by hand (tests) gets them on first use.
func (in *infra) carrierGates(cfg Config, log *slog.Logger) *poller.Gates {
	if in.gates == nil {
		in.gates = newCarrierGates(cfg, log)
	}
	return in.gates
}

func newCarrierGates(cfg Config, log *slog.Logger) *poller.Gates {
	g, err := poller.NewGates(cfg.withDerived().Poller, adapters(cfg), log.With("stage", "carrier-gates"), nil)
	if err != nil {
		panic(err) // cfg.Poller was validated with the rest of the configuration
	}
	return g
}

// gatedProber answers POST /carrier/health-check and carrier inference's
// shipment probes through the process's carrier gates (poller.Gates.Probe):
// the account's share of the carrier and the carrier-wide cap and breaker
// its polls pass, and the carrier's one adapter with its cached tokens.
type gatedProber struct{ gates *poller.Gates }

func (p gatedProber) Probe(ctx context.Context, env, scac, account string, creds map[string]string) (string, int, error) {
	var h carrier.Health
	_, err := p.gates.Probe(ctx, env, scac, account, func(ctx context.Context, a carrier.Adapter) (carrier.Result, error) {
		h = a.Probe(ctx, carrier.Credentials(creds))
		return h.AsResult(), nil
	})
	var paused *poller.PausedError
	switch {
	case errors.As(err, &paused):
		return "", 0, &commandapi.ProbePausedError{RetryAfter: time.Until(paused.Until)}
	case err != nil && ctx.Err() != nil:
		return "", 0, err // the caller left
	case err != nil:
		// The carrier is down for everyone (its breaker is open), or there
		// is no adapter for it here (no live base URL).
		return carrier.HealthUnreachable, 0, nil
	}
	return h.Status, h.HTTPCode, nil
}

// ProbeShipment answers carrier inference with the request a poll makes,
// through the gates, bounded by ctx.
func (p gatedProber) ProbeShipment(ctx context.Context, env, scac, account string, creds map[string]string, kind, value string) (string, int) {
	l := carrier.Lookup{Status: carrier.LookupError}
	_, err := p.gates.Probe(ctx, env, scac, account, func(ctx context.Context, a carrier.Adapter) (carrier.Result, error) {
		r, err := a.Fetch(ctx, carrier.Credentials(creds), carrier.Query{Kind: carrier.IdentifierKind(kind), Value: value})
		l = carrier.LookupOf(ctx, r, err)
		return r, err
	})
	var paused *poller.PausedError
	switch {
	case errors.As(err, &paused):
		return "PAUSED", 0
	case err != nil && ctx.Err() != nil:
		return carrier.LookupTimeout, 0
	case errors.Is(err, poller.ErrCarrierDown):
		return carrier.LookupUnreachable, 0
	case err != nil && l.Status == carrier.LookupError && l.HTTPCode == 0:
		return carrier.LookupUnreachable, 0 // no adapter for it here
	}
	return l.Status, l.HTTPCode
}

// connectorFetcher makes POST /carrier/connectors/{code}/fetch's fetches
// with the connector's adapter, through a client that refuses internal
// addresses as webhooks do (unless CONTRACK_ALLOW_PRIVATE_WEBHOOKS).
type connectorFetcher struct{ allowPrivate bool }

func (f connectorFetcher) FetchConnector(ctx context.Context, conn carriers.Connector, q carriers.ConnectorQuery, maxPages int) (carriers.ConnectorFetch, error) {
	a, err := carrier.NewConnector(conn, webhooktarget.NewClient(f.allowPrivate, 30*time.Second))
	if err != nil {
		return carriers.ConnectorFetch{}, err
	}
	r, err := a.FetchQuery(ctx, q, maxPages)
	if err != nil {
		return carriers.ConnectorFetch{}, err
	}
	return carriers.ConnectorFetch{Outcome: string(r.Outcome), HTTPCode: r.HTTPCode, Reason: r.Reason, Requests: r.Requests,
		Pages: r.Pages, EventCount: r.EventCount, NextCursor: r.NextCursor}, nil
}
