package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Plan is a usage plan, a row of usage_plans: a request rate per key, as
// commercial tracking APIs sell them, and optionally a daily request quota
// per account. Over either a key gets 429 with Retry-After.
type Plan struct {
	ID          string
	Name        string
	DisplayName string
	// RatePerSecond is the sustained request rate per key; Burst the bucket size.
	RatePerSecond float64
	Burst         int
	// DailyQuota is the requests an account may make per UTC day over all
	// its keys; 0 means none.
	DailyQuota int64
	// LongPolls is how many long-polls of GET /subscriptions/events an
	// account may hold at once in one API process (beyond it: 429).
	LongPolls int
	// OpenSubscriptions is how many subscriptions an account may have open
	// (beyond it POST /subscription/equipment is 429).
	OpenSubscriptions int64
	// CarrierRate is the polls per second the account may make of each
	// carrier (its own credentials, its own contract with the carrier);
	// default DefaultCarrierRate.
	CarrierRate float64
}

// DefaultCarrierRate is a plan's polls per second per (account, carrier)
// when none is given, and the rate of accounts without a plan.
const DefaultCarrierRate = 10

// Defaults of the per-account plan limits (migration 0031's column
// defaults), for plans created without them and accounts without a plan.
const (
	DefaultLongPolls         = 20
	DefaultOpenSubscriptions = 100_000
)

// PlanNone, given as --plan or to set-plan, leaves an account without a
// usage plan (GET /account shows usagePlan null; requests are limited as
// NoPlanLimits).
const PlanNone = "none"

// PlanCarrier is the plan a new account gets when its first key is a
// carrier key (seeded by migration 0022: 2,000/s, burst 10,000).
const PlanCarrier = "carrier"

// NoPlanLimits apply to accounts without a plan.
var NoPlanLimits = Plan{RatePerSecond: 20, Burst: 40, LongPolls: DefaultLongPolls, OpenSubscriptions: DefaultOpenSubscriptions,
	CarrierRate: DefaultCarrierRate}

// Limits is the plan of a (resolved) account, or NoPlanLimits without one.
func (a Account) Limits() Plan {
	if a.UsagePlan != nil {
		return *a.UsagePlan
	}
	return NoPlanLimits
}

// DefaultPlan is the plan a new account of env gets when none is named:
// carrier keys stream pushes, consumers get the environment's plan.
func DefaultPlan(env, role string) string {
	if role == RoleCarrier {
		return PlanCarrier
	}
	if env == "sandbox" {
		return "sandbox"
	}
	return "standard"
}

// ErrUnknownPlan is returned for a plan name not in usage_plans.
var ErrUnknownPlan = errors.New("auth: unknown plan")

var planNameRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$`)

// plansChanged is the payload on the key cache's channel that makes every
// API process forget every cached key (and so re-read its plan).
const plansChanged = "plans"

// validate reports every problem of p as a usage error an operator can act on.
func (p Plan) validate() error {
	var errs []error
	if !planNameRe.MatchString(p.Name) || p.Name == PlanNone {
		errs = append(errs, fmt.Errorf("plan name %q must be 1 to 32 lower-case letters, digits and dashes, and not %q", p.Name, PlanNone))
	}
	if strings.TrimSpace(p.DisplayName) == "" {
		errs = append(errs, errors.New("display name must not be empty"))
	}
	if math.IsNaN(p.RatePerSecond) || p.RatePerSecond <= 0 || p.RatePerSecond > 1_000_000 {
		errs = append(errs, fmt.Errorf("rate %v must be above 0 and at most 1000000 requests per second", p.RatePerSecond))
	}
	if p.Burst < 1 || p.Burst > 10_000_000 {
		errs = append(errs, fmt.Errorf("burst %d must be 1 to 10000000", p.Burst))
	}
	if math.IsNaN(p.CarrierRate) || p.CarrierRate <= 0 || p.CarrierRate > 100_000 {
		errs = append(errs, fmt.Errorf("carrier rate %v must be above 0 and at most 100000 polls per second", p.CarrierRate))
	}
	if p.DailyQuota < 0 {
		errs = append(errs, fmt.Errorf("daily quota %d must not be negative (0: none)", p.DailyQuota))
	}
	if p.LongPolls < 1 || p.LongPolls > 10_000 {
		errs = append(errs, fmt.Errorf("long-polls %d must be 1 to 10000", p.LongPolls))
	}
	if p.OpenSubscriptions < 1 || p.OpenSubscriptions > 100_000_000 {
		errs = append(errs, fmt.Errorf("open subscriptions %d must be 1 to 100000000", p.OpenSubscriptions))
	}
	if len(errs) > 0 {
		return fmt.Errorf("auth: invalid plan: %w", errors.Join(errs...))
	}
	return nil
}

const planColumns = `name, id, display_name, rate_per_second, burst, COALESCE(daily_quota, 0), long_polls, open_subscriptions, carrier_rate`

func scanPlan(r pgx.Row) (Plan, error) {
	var p Plan
	err := r.Scan(&p.Name, &p.ID, &p.DisplayName, &p.RatePerSecond, &p.Burst, &p.DailyQuota, &p.LongPolls, &p.OpenSubscriptions, &p.CarrierRate)
	return p, err
}

// Plans lists every plan by name.
func (s *Store) Plans(ctx context.Context) ([]Plan, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+planColumns+` FROM usage_plans ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("auth: list plans: %w", err)
	}
	ps, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Plan, error) { return scanPlan(r) })
	if err != nil {
		return nil, fmt.Errorf("auth: list plans: %w", err)
	}
	return ps, nil
}

// LookupPlan returns the plan of that name, or ErrUnknownPlan.
func (s *Store) LookupPlan(ctx context.Context, name string) (Plan, error) {
	p, err := scanPlan(s.pool.QueryRow(ctx, `SELECT `+planColumns+` FROM usage_plans WHERE name = $1`, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return Plan{}, s.unknownPlan(ctx, name)
	}
	if err != nil {
		return Plan{}, fmt.Errorf("auth: look up plan: %w", err)
	}
	return p, nil
}

// unknownPlan names the known plans in the error, for the operator.
func (s *Store) unknownPlan(ctx context.Context, name string) error {
	ps, err := s.Plans(ctx)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(ps)+1)
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return fmt.Errorf("%w %q (known: %s)", ErrUnknownPlan, name, strings.Join(append(names, PlanNone), ", "))
}

// CreatePlan adds a plan; its id is "plan-<name>". DisplayName defaults to
// the name, LongPolls, OpenSubscriptions and CarrierRate to their defaults.
func (s *Store) CreatePlan(ctx context.Context, p Plan) (Plan, error) {
	if p.DisplayName == "" {
		p.DisplayName = p.Name
	}
	if p.LongPolls == 0 {
		p.LongPolls = DefaultLongPolls
	}
	if p.OpenSubscriptions == 0 {
		p.OpenSubscriptions = DefaultOpenSubscriptions
	}
	if p.CarrierRate == 0 {
		p.CarrierRate = DefaultCarrierRate
	}
	if err := p.validate(); err != nil {
		return Plan{}, err
	}
	p.ID = "plan-" + p.Name
	_, err := s.pool.Exec(ctx, `
		INSERT INTO usage_plans (name, id, display_name, rate_per_second, burst, daily_quota, long_polls, open_subscriptions, carrier_rate)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, 0), $7, $8, $9)`, p.Name, p.ID, p.DisplayName, p.RatePerSecond, p.Burst, p.DailyQuota,
		p.LongPolls, p.OpenSubscriptions, p.CarrierRate)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return Plan{}, fmt.Errorf("auth: plan %q exists (change it with plan update)", p.Name)
	}
	if err != nil {
		return Plan{}, fmt.Errorf("auth: create plan: %w", err)
	}
	return p, nil
}

// PlanUpdate names the fields of a plan to change; nil leaves one as it is.
type PlanUpdate struct {
	DisplayName       *string
	RatePerSecond     *float64
	Burst             *int
	DailyQuota        *int64 // 0 removes the quota
	LongPolls         *int
	OpenSubscriptions *int64
	CarrierRate       *float64
}

// UpdatePlan changes a plan and tells every API process, whose keys then
// take the new limits within about a second (as a revocation does).
func (s *Store) UpdatePlan(ctx context.Context, name string, u PlanUpdate) (Plan, error) {
	if u == (PlanUpdate{}) {
		return Plan{}, errors.New("auth: nothing to update (give --rate, --burst, --daily-quota, --long-polls, --open-subscriptions, --carrier-rate or --display-name)")
	}
	var p Plan
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		p, err = scanPlan(tx.QueryRow(ctx, `SELECT `+planColumns+` FROM usage_plans WHERE name = $1 FOR UPDATE`, name))
		if errors.Is(err, pgx.ErrNoRows) {
			return s.unknownPlan(ctx, name)
		}
		if err != nil {
			return fmt.Errorf("auth: read plan: %w", err)
		}
		if u.DisplayName != nil {
			p.DisplayName = *u.DisplayName
		}
		if u.RatePerSecond != nil {
			p.RatePerSecond = *u.RatePerSecond
		}
		if u.Burst != nil {
			p.Burst = *u.Burst
		}
		if u.DailyQuota != nil {
			p.DailyQuota = *u.DailyQuota
		}
		if u.LongPolls != nil {
			p.LongPolls = *u.LongPolls
		}
		if u.OpenSubscriptions != nil {
			p.OpenSubscriptions = *u.OpenSubscriptions
		}
		if u.CarrierRate != nil {
			p.CarrierRate = *u.CarrierRate
		}
		if err := p.validate(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `
			UPDATE usage_plans SET display_name = $2, rate_per_second = $3, burst = $4, daily_quota = NULLIF($5, 0),
				long_polls = $6, open_subscriptions = $7, carrier_rate = $8, updated_at = now()
			WHERE name = $1`, p.Name, p.DisplayName, p.RatePerSecond, p.Burst, p.DailyQuota, p.LongPolls, p.OpenSubscriptions, p.CarrierRate); err != nil {
			return fmt.Errorf("auth: update plan: %w", err)
		}
		// Delivered at commit, so no process re-reads the old row.
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, revocationChannel, plansChanged); err != nil {
			return fmt.Errorf("auth: notify plan change: %w", err)
		}
		return nil
	})
	if err != nil {
		return Plan{}, err
	}
	return p, nil
}

// SetPlan moves the account (client, env) to plan (PlanNone: no plan) and
// tells every API process to forget its keys, which then take the new
// limits within about a second.
func (s *Store) SetPlan(ctx context.Context, client, env, plan string) (Account, error) {
	if plan != PlanNone {
		if _, err := s.LookupPlan(ctx, plan); err != nil {
			return Account{}, err
		}
	}
	var a Account
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			UPDATE accounts SET plan = NULLIF($3, $4) WHERE client_slug = $1 AND env = $2
			RETURNING id, client_slug, env, display_name, COALESCE(plan, '')`, client, env, plan, PlanNone).
			Scan(&a.ID, &a.ClientSlug, &a.Env, &a.DisplayName, &a.Plan)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("auth: no account %s (%s)", client, env)
		}
		if err != nil {
			return fmt.Errorf("auth: set plan: %w", err)
		}
		// The account's keys, by hash: each process drops just those.
		if _, err := tx.Exec(ctx, `
			SELECT pg_notify($1, encode(key_hash, 'hex')) FROM api_keys
			WHERE account_id = $2 AND revoked_at IS NULL`, revocationChannel, a.ID); err != nil {
			return fmt.Errorf("auth: notify plan change: %w", err)
		}
		return nil
	})
	if err != nil {
		return Account{}, err
	}
	return a, nil
}
