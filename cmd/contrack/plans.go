package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/contrack/contrack/platform/auth"
)

const planUsage = "contrack admin plan create NAME --rate N --burst N [--daily-quota N] [--long-polls N] [--open-subscriptions N] [--carrier-rate N] [--display-name TEXT]" +
	" | plan update NAME [--rate N] [--burst N] [--daily-quota N (0 removes it)] [--long-polls N] [--open-subscriptions N] [--carrier-rate N] [--display-name TEXT] | plan list"

const setPlanUsage = "contrack admin set-plan CLIENT live|sandbox PLAN (or none)"

// adminPlan runs `contrack admin plan create|update|list`.
func adminPlan(ctx context.Context, store *auth.Store, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, planUsage)
	}
	switch args[0] {
	case "list":
		if len(args) != 1 {
			return fmt.Errorf("%w: contrack admin plan list takes no arguments", errUsage)
		}
		plans, err := store.Plans(ctx)
		if err != nil {
			return err
		}
		return printPlans(out, plans)
	case "create", "update":
		name, flags, err := planName(args[0], args[1:])
		if err != nil {
			return err
		}
		fs := flag.NewFlagSet("plan "+args[0], flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		rate := fs.Float64("rate", 0, "sustained requests per second per key")
		burst := fs.Int("burst", 0, "token bucket size per key")
		quota := fs.Int64("daily-quota", 0, "requests per account per UTC day (0: none)")
		longPolls := fs.Int("long-polls", 0, "long-polls of GET /subscriptions/events an account holds at once per API process (default 20)")
		openSubs := fs.Int64("open-subscriptions", 0, "subscriptions an account may have open (default 100000)")
		carrierRate := fs.Float64("carrier-rate", 0, "polls per second per account and carrier (default 10)")
		display := fs.String("display-name", "", "name shown in GET /account (default: the plan name)")
		if err := fs.Parse(flags); err != nil {
			return fmt.Errorf("%w: %w (%s)", errUsage, err, planUsage)
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("%w: unexpected %q (%s)", errUsage, strings.Join(fs.Args(), " "), planUsage)
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		var p auth.Plan
		if args[0] == "create" {
			if set["carrier-rate"] && *carrierRate <= 0 {
				return fmt.Errorf("%w: --carrier-rate must be above 0 (%s)", errUsage, planUsage)
			}
			if !set["rate"] || !set["burst"] {
				return fmt.Errorf("%w: plan create needs --rate and --burst (%s)", errUsage, planUsage)
			}
			p, err = store.CreatePlan(ctx, auth.Plan{Name: name, DisplayName: *display, RatePerSecond: *rate, Burst: *burst, DailyQuota: *quota,
				LongPolls: *longPolls, OpenSubscriptions: *openSubs, CarrierRate: *carrierRate})
		} else {
			var u auth.PlanUpdate
			if set["rate"] {
				u.RatePerSecond = rate
			}
			if set["burst"] {
				u.Burst = burst
			}
			if set["daily-quota"] {
				u.DailyQuota = quota
			}
			if set["carrier-rate"] {
				u.CarrierRate = carrierRate
			}
			if set["display-name"] {
				u.DisplayName = display
			}
			if set["long-polls"] {
				u.LongPolls = longPolls
			}
			if set["open-subscriptions"] {
				u.OpenSubscriptions = openSubs
			}
			p, err = store.UpdatePlan(ctx, name, u)
		}
		if err != nil {
			return err
		}
		return printPlans(out, []auth.Plan{p})
	default:
		return fmt.Errorf("%w: unknown plan command %q (%s)", errUsage, args[0], planUsage)
	}
}

// planName takes the plan's name, which comes before the flags.
func planName(cmd string, args []string) (string, []string, error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:], nil
	}
	return "", nil, fmt.Errorf("%w: plan %s needs the plan's NAME first (%s)", errUsage, cmd, planUsage)
}

func printPlans(out io.Writer, plans []auth.Plan) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tDISPLAY NAME\tRATE/S PER KEY\tBURST\tDAILY QUOTA PER ACCOUNT\tLONG-POLLS PER ACCOUNT\tOPEN SUBSCRIPTIONS PER ACCOUNT\tPOLLS/S PER CARRIER")
	for _, p := range plans {
		quota := "-"
		if p.DailyQuota > 0 {
			quota = fmt.Sprint(p.DailyQuota)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%g\t%d\t%s\t%d\t%d\t%g\n", p.Name, p.ID, p.DisplayName, p.RatePerSecond, p.Burst, quota, p.LongPolls, p.OpenSubscriptions, p.CarrierRate)
	}
	return tw.Flush()
}

// adminSetPlan runs `contrack admin set-plan CLIENT ENV PLAN`.
func adminSetPlan(ctx context.Context, store *auth.Store, args []string, out io.Writer) error {
	if len(args) != 3 {
		return fmt.Errorf("%w: %s", errUsage, setPlanUsage)
	}
	if args[1] != "live" && args[1] != "sandbox" {
		return fmt.Errorf("%w: env must be live or sandbox, not %q (%s)", errUsage, args[1], setPlanUsage)
	}
	a, err := store.SetPlan(ctx, args[0], args[1], args[2])
	if errors.Is(err, auth.ErrUnknownPlan) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if err != nil {
		return err
	}
	plan := a.Plan
	if plan == "" {
		plan = auth.PlanNone
	}
	fmt.Fprintf(out, "account %s (%s) now on plan %s; its keys take it within seconds\n", a.ClientSlug, a.Env, plan)
	return nil
}
