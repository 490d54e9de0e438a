package vessels

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/contrack/contrack/platform/loop"
	"github.com/contrack/contrack/schemas"
)

// provider asks a position provider for the live vessels' latest positions.
//
// The API is the shape of Datalastic's vessel_bulk (v0), as its public
// documentation describes it:
//
//	GET {ProviderURL}/api/v0/vessel_bulk?api-key=KEY&imo=9811000&imo=9321483   (at most 100 imo)
//	200 {"data":{"total":2,"vessels":[{"uuid":"…","name":"EVER GIVEN","mmsi":"353136000","imo":"9811000",
//	      "lat":25.29845,"lon":121.217,"speed":14.2,"course":194.0,"heading":195,
//	      "navigation_status":"Under way using engine","destination":"NLRTM",
//	      "last_position_epoch":1690552897,"last_position_UTC":"2023-07-28T14:01:37Z"}]},
//	     "meta":{"success":true}}
//
// An unknown IMO number is absent from vessels; 401/403 is a refused key.
// Other providers need an adapter of their own beside this one. Tests run
// it against a local simulation of that API (provider_test.go).
type provider struct {
	cfg  Config
	deps Deps
	m    *metrics
	http *http.Client

	imos   []string
	listed time.Time
}

func newProvider(cfg Config, deps Deps, m *metrics) *provider {
	c := deps.HTTP
	if c == nil {
		c = &http.Client{Timeout: cfg.ProviderTimeout}
	}
	return &provider{cfg: cfg, deps: deps, m: m, http: c}
}

// run asks the provider at start and every ProviderInterval until ctx
// ends: the component "vessels-provider" (a failure counted and logged,
// tried again at the next round).
func (p *provider) run(ctx context.Context) error {
	return p.deps.Loops.Run(ctx, loop.Component{Name: "vessels-provider", Log: p.deps.Log, Rounds: []loop.Round{
		{AtStart: true, Every: p.cfg.ProviderInterval, Do: func(ctx context.Context) error {
			err := p.round(ctx)
			if err != nil && ctx.Err() == nil {
				p.deps.Log.Error("live vessels: asking the position provider failed; trying again at the next round", "err", err)
			}
			return err
		}},
	}})
}

// round asks for every live vessel's position, ProviderBatch at a time,
// and writes what the provider knows.
func (p *provider) round(ctx context.Context) error {
	if time.Since(p.listed) >= p.cfg.LiveRefresh || p.imos == nil {
		imos, err := LiveVessels(ctx, p.deps.CH, p.cfg.MaxVessels)
		if err != nil {
			if p.imos == nil {
				return err
			}
			p.deps.Log.Error("live vessels: listing the vessels of live journeys failed; asking for those known", "err", err)
		} else {
			p.imos, p.listed = imos, time.Now()
		}
	}
	var errs []error
	for lo := 0; lo < len(p.imos); lo += p.cfg.ProviderBatch {
		batch := p.imos[lo:min(lo+p.cfg.ProviderBatch, len(p.imos))]
		ps, err := p.fetch(ctx, batch)
		if err != nil {
			errs = append(errs, err)
			if errors.Is(err, errUnauthorized) {
				break // every other request would be refused too
			}
			continue
		}
		if err := produce(ctx, p.deps, p.m, ps); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

var errUnauthorized = errors.New("vessels: the provider refused the API key")

// bulkResponse is vessel_bulk's answer (the fields used).
type bulkResponse struct {
	Data struct {
		Vessels []struct {
			IMO              string   `json:"imo"`
			Lat              *float64 `json:"lat"`
			Lon              *float64 `json:"lon"`
			Speed            *float64 `json:"speed"`
			Course           *float64 `json:"course"`
			NavigationStatus string   `json:"navigation_status"`
			LastPositionUTC  string   `json:"last_position_UTC"`
		} `json:"vessels"`
	} `json:"data"`
}

// fetch asks for one batch. The request URL carries the API key, so no
// error or log line includes it.
func (p *provider) fetch(ctx context.Context, imos []string) ([]schemas.VesselPosition, error) {
	q := url.Values{"api-key": {p.cfg.ProviderAPIKey}, "imo": imos}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(p.cfg.ProviderURL, "/")+"/api/v0/vessel_bulk?"+q.Encode(), nil)
	if err != nil {
		return nil, errors.New("vessels: provider request: bad URL")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.http.Do(req)
	if err != nil {
		p.m.requests.WithLabelValues("unreachable").Inc()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL and its key
		}
		return nil, fmt.Errorf("vessels: provider unreachable: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		p.m.requests.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("vessels: provider answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		p.m.requests.WithLabelValues("unauthorized").Inc()
		return nil, fmt.Errorf("%w (HTTP %d)", errUnauthorized, resp.StatusCode)
	case resp.StatusCode != http.StatusOK:
		p.m.requests.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("vessels: provider answered HTTP %d", resp.StatusCode)
	}
	var br bulkResponse
	if err := json.Unmarshal(body, &br); err != nil {
		p.m.requests.WithLabelValues("error").Inc()
		return nil, fmt.Errorf("vessels: provider answer is not vessel_bulk JSON: %w", err)
	}
	p.m.requests.WithLabelValues("ok").Inc()
	out := make([]schemas.VesselPosition, 0, len(br.Data.Vessels))
	skipped := 0
	for _, v := range br.Data.Vessels {
		if v.Lat == nil || v.Lon == nil {
			continue // known vessel, no position yet
		}
		at, err := time.Parse(time.RFC3339, strings.Replace(strings.TrimSpace(v.LastPositionUTC), " ", "T", 1))
		if err != nil {
			skipped++
			continue
		}
		pos := schemas.VesselPosition{Env: schemas.EnvLive, IMO: strings.TrimSpace(v.IMO), At: at.UTC(), Lat: *v.Lat, Lon: *v.Lon,
			NavStatus: navStatus(v.NavigationStatus), Source: "datalastic"}
		if v.Speed != nil {
			pos.SpeedKnots = *v.Speed
		}
		if v.Course != nil && *v.Course >= 0 && *v.Course < 360 {
			pos.Course = *v.Course
		}
		if pos.Validate() != nil {
			skipped++
			continue
		}
		out = append(out, pos)
	}
	if skipped > 0 {
		p.deps.Log.Warn("live vessels: provider reports left out (bad time or values)", "count", skipped)
	}
	return out, nil
}

// navStatus maps the provider's text to the AIS code.
func navStatus(s string) int {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "under way using engine", "underway using engine":
		return 0
	case "at anchor":
		return 1
	case "not under command":
		return 2
	case "restricted manoeuverability", "restricted maneuverability", "restricted manoeuvrability":
		return 3
	case "constrained by her draught", "constrained by draught":
		return 4
	case "moored":
		return 5
	case "aground":
		return 6
	case "engaged in fishing":
		return 7
	case "under way sailing", "underway sailing":
		return 8
	}
	return schemas.NavUndefined
}

// LiveVessels lists the IMO numbers live journeys name in their transport
// events (departures and arrivals) within 60 days either side of now, from
// ClickHouse's events table: at most max, the latest events' first.
func LiveVessels(ctx context.Context, ch driver.Conn, max int) ([]string, error) {
	rows, err := ch.Query(ctx, `SELECT imo FROM (
			SELECT extract(event_json, '"vesselIMONumber":"([0-9]{7})"') AS imo, max(event_time) AS latest
			FROM events
			WHERE env = 'live' AND event_type = 'TRANSPORT'
			  AND event_time > now() - 5184000 AND event_time < now() + 5184000
			GROUP BY imo)
		WHERE imo != '' ORDER BY latest DESC LIMIT ?`, uint64(max))
	if err != nil {
		return nil, fmt.Errorf("vessels: list live vessels: %w", err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var imo string
		if err := rows.Scan(&imo); err != nil {
			return nil, fmt.Errorf("vessels: list live vessels: %w", err)
		}
		out = append(out, imo)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vessels: list live vessels: %w", err)
	}
	return out, nil
}
