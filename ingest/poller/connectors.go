package poller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/contrack/contrack/ingest/carrier"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/webhooktarget"
	"github.com/contrack/contrack/schemas/carriers"
)

// An account's carrier connector (carriers.Connector, table
// carrier_connectors) is polled as a registered carrier is: its trackings
// (scac = the connector's code) are claimed by the same index, through the
// account's share at its plan's rate. What differs: its adapter and
// breaker are the account's alone (accountGate.connector), its credentials
// are its own, and a tracking it answered is next asked only for the
// events updated since that poll began, less sinceMargin
// (trackings.poll_since).

// sinceMargin is how far before a poll's start the next poll of the
// tracking asks from: the producer's clock and the time an update takes to
// show in its answers may lag ours. What is asked twice the normaliser's
// dedupe drops.
const sinceMargin = 5 * time.Minute

// connectorRow is a connector a refresh read, its secret still sealed.
type connectorRow struct {
	key     groupKey
	env     string
	conn    carriers.Connector
	sealed  []byte
	rate    float64
	version string
}

// readConnectors returns the connectors of the active accounts this
// poller owns.
func (p *poller) readConnectors(ctx context.Context, index, count int) ([]connectorRow, error) {
	rows, err := p.deps.Pool.Query(ctx, `
		SELECT c.account_id, a.env, c.code, c.base_url, c.format, c.auth_scheme, c.auth_header_name, c.auth_token_url,
		       c.auth_client_id, c.auth_scope, c.auth_username, c.event_types, c.secret_enc, c.updated_at,
		       coalesce(pl.carrier_rate, $1)
		FROM carrier_connectors c JOIN accounts a ON a.id = c.account_id AND a.active
		LEFT JOIN usage_plans pl ON pl.name = a.plan`, float64(auth.DefaultCarrierRate))
	if err != nil {
		return nil, fmt.Errorf("read accounts' connectors: %w", err)
	}
	defer rows.Close()
	var out []connectorRow
	for rows.Next() {
		var r connectorRow
		var format, scheme string
		var updated time.Time
		c := &r.conn
		if err := rows.Scan(&c.AccountID, &r.env, &c.Code, &c.BaseURL, &format, &scheme, &c.Auth.HeaderName, &c.Auth.TokenURL,
			&c.Auth.ClientID, &c.Auth.Scope, &c.Auth.Username, &c.EventTypes, &r.sealed, &updated, &r.rate); err != nil {
			return nil, fmt.Errorf("read accounts' connectors: %w", err)
		}
		c.Format, c.Auth.Scheme = carriers.Format(format), carriers.AuthScheme(scheme)
		r.key = groupKey{c.AccountID, c.Code}
		sum := sha256.Sum256(append([]byte(updated.UTC().Format(time.RFC3339Nano)+"\x00"), r.sealed...))
		r.version = hex.EncodeToString(sum[:])
		if owns(r.key.account, index, count) {
			out = append(out, r)
		}
	}
	return out, rows.Err()
}

// applyConnector makes or updates g's connector gate from r (g.mu held):
// a new adapter when the stored row changed. A connector whose secret does
// not open, or that cannot be built, polls nothing (logged).
func (p *poller) applyConnector(g *accountGate, r connectorRow) {
	if g.connectorVersion == r.version && g.connector != nil {
		return
	}
	g.connectorVersion = r.version
	g.connector, g.creds = nil, nil
	if r.sealed != nil {
		plain, err := p.deps.Box.Open(r.sealed, secretbox.CarrierConnectorContext(r.key.account, r.key.scac))
		if err != nil {
			p.log.Error("open carrier connector secret", "account_id", r.key.account, "carrier", r.key.scac, "err", err)
			return
		}
		r.conn.Secret = string(plain)
	}
	client := webhooktarget.NewClient(p.cfg.AllowPrivateConnectors, p.cfg.PollTimeout)
	a, err := carrier.NewConnector(r.conn, client)
	if err != nil {
		p.log.Error("carrier connector", "account_id", r.key.account, "carrier", r.key.scac, "err", err)
		return
	}
	key := "connector/" + r.key.account + "/" + r.key.scac
	g.connector = p.gates.newCarrierGate(key, r.env, r.key.scac, a, true)
	// Its credentials are the connector's own: a non-nil set marks the
	// share as one to poll.
	g.creds = carrier.Credentials{}
}

// gateFor is the gate a claim of the share ag polls through: its
// connector's, or its carrier's in env.
func (p *poller) gateFor(ag *accountGate, env, scac string) (*carrierGate, error) {
	if c := ag.connectorGate(); c != nil {
		return c, nil
	}
	return p.gate(env, scac)
}
