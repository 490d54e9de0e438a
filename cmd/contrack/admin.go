package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"

	"github.com/contrack/contrack/ingest"
	"github.com/contrack/contrack/normalize/stage"
	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/clickhouse"
	"github.com/contrack/contrack/platform/postgres"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/platform/signature"
	"github.com/contrack/contrack/projector"
	"github.com/contrack/contrack/schemas"
)

func runAdmin(ctx context.Context, cfg Config, log *slog.Logger, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: contrack admin create-key|revoke-key|disable-account|enable-account|list|plan|set-plan|set-signing-secret|rotate-secrets|rebuild-journeys|dead-letters", errUsage)
	}
	if args[0] == "rebuild-journeys" {
		return adminRebuildJourneys(ctx, cfg, log)
	}
	if args[0] == "dead-letters" {
		return adminDeadLetters(ctx, cfg.brokers(), cfg.KafkaNamespace, log, args[1:], os.Stdout)
	}
	pool, err := postgres.Open(ctx, cfg.PGURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := postgres.Migrate(ctx, pool, log); err != nil {
		return err
	}
	store := auth.NewStore(pool)
	switch args[0] {
	case "create-key":
		box, err := secretbox.New(cfg.SecretKey, cfg.SecretKeysPrevious...)
		if err != nil {
			return err
		}
		return adminCreateKey(ctx, store, &ingest.SigningSecretStore{Pool: pool, Box: box}, args[1:], os.Stdout)
	case "revoke-key":
		if len(args) != 2 {
			return fmt.Errorf("%w: contrack admin revoke-key KEY_OR_ID", errUsage)
		}
		ok, err := store.RevokeKey(ctx, args[1])
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no active key matches")
		}
		fmt.Println("revoked (an account without another key stops: no polls, webhooks or feed events)")
		return nil
	case "disable-account", "enable-account":
		return adminDisableAccount(ctx, store, args[0] == "disable-account", args[1:], os.Stdout)
	case "plan":
		return adminPlan(ctx, store, args[1:], os.Stdout)
	case "set-plan":
		return adminSetPlan(ctx, store, args[1:], os.Stdout)
	case "list":
		unmatched, err := stage.UnmatchedByKey(ctx, pool)
		if err != nil {
			return err
		}
		return adminList(ctx, store, unmatched, os.Stdout)
	case "set-signing-secret":
		// The carrier signs POST /events with the Standard Webhooks headers
		// or, unless --timestamped-only, Notification-Signature: sha256=<hex HMAC>.
		box, err := secretbox.New(cfg.SecretKey, cfg.SecretKeysPrevious...)
		if err != nil {
			return err
		}
		return adminSetSigningSecret(ctx, &ingest.SigningSecretStore{Pool: pool, Box: box}, args[1:], os.Stdout)
	case "rotate-secrets":
		// Re-seal every stored secret with the current key; the previous
		// keys (CONTRACK_SECRET_KEYS_PREVIOUS) open what they sealed.
		box, err := secretbox.New(cfg.SecretKey, cfg.SecretKeysPrevious...)
		if err != nil {
			return err
		}
		res, err := rotateSecrets(ctx, pool, box)
		if err != nil {
			return err
		}
		fmt.Printf("re-encrypted %d secret(s); %d already under the current key\n", res.Resealed, res.Current)
		return nil
	default:
		return fmt.Errorf("%w: unknown admin command %q", errUsage, args[0])
	}
}

const setSigningSecretUsage = `contrack admin set-signing-secret CARRIER_KEY_ID SECRET [--timestamped-only] ("" clears it, not for live keys)`

// adminSetSigningSecret runs `contrack admin set-signing-secret`.
func adminSetSigningSecret(ctx context.Context, secrets *ingest.SigningSecretStore, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("set-signing-secret", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	timestamped := fs.Bool("timestamped-only", false, "refuse the body-only Notification-Signature: only the Standard Webhooks headers")
	var pos []string
	for len(args) > 0 { // flags may come after the positional arguments
		if err := fs.Parse(args); err != nil {
			return fmt.Errorf("%w: %w (%s)", errUsage, err, setSigningSecretUsage)
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: %s", errUsage, setSigningSecretUsage)
	}
	if err := secrets.SetSigningPolicy(ctx, pos[0], pos[1], *timestamped); err != nil {
		return err
	}
	switch {
	case pos[1] == "":
		fmt.Fprintln(out, "signing secret cleared")
	case *timestamped:
		fmt.Fprintln(out, "signing secret set; pushes must carry webhook-id, webhook-timestamp and webhook-signature")
	default:
		fmt.Fprintln(out, "signing secret set")
	}
	return nil
}

// adminDisableAccount runs `contrack admin disable-account|enable-account CLIENT ENV`.
func adminDisableAccount(ctx context.Context, store *auth.Store, disable bool, args []string, out io.Writer) error {
	cmd := map[bool]string{true: "disable-account", false: "enable-account"}[disable]
	if len(args) != 2 || (args[1] != "live" && args[1] != "sandbox") {
		return fmt.Errorf("%w: contrack admin %s CLIENT live|sandbox", errUsage, cmd)
	}
	a, err := store.SetAccountDisabled(ctx, args[0], args[1], disable)
	if err != nil {
		return err
	}
	switch {
	case a.Disabled:
		fmt.Fprintf(out, "account %s (%s) disabled: its keys are refused, its trackings not polled, no webhooks or feed events until enable-account\n", a.ClientSlug, a.Env)
	case !a.Active:
		fmt.Fprintf(out, "account %s (%s) enabled, but every key is revoked: it stays stopped until a key is created\n", a.ClientSlug, a.Env)
	default:
		fmt.Fprintf(out, "account %s (%s) enabled\n", a.ClientSlug, a.Env)
	}
	return nil
}

// adminCreateKey prints a summary and then the key alone as the last line
// of stdout, so scripts can take it with `tail -n1`. A live carrier key
// gets a signing secret at once (its pushes must be signed), printed once
// above the key.
func adminCreateKey(ctx context.Context, store *auth.Store, secrets *ingest.SigningSecretStore, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("create-key", flag.ContinueOnError)
	var p auth.CreateKeyParams
	fs.StringVar(&p.ClientSlug, "client", "", "client slug (lower-case letters, digits, dashes)")
	fs.StringVar(&p.Env, "env", "", "live or sandbox")
	fs.StringVar(&p.DisplayName, "display-name", "", "human-readable account name (default: the slug)")
	fs.StringVar(&p.Plan, "plan", "", "usage plan (see `contrack admin plan list`) or none; default: carrier for a new carrier account, else the env's")
	fs.StringVar(&p.Role, "role", auth.RoleConsumer, "consumer or carrier")
	fs.StringVar(&p.SCAC, "scac", "", "for carrier keys: the carrier's SCAC code")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if p.ClientSlug == "" || p.Env == "" {
		return fmt.Errorf("%w: --client and --env are required", errUsage)
	}
	key, k, err := store.CreateKey(ctx, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "account %s (%s, %s) key %s role %s\n", k.Account.ClientSlug, k.Account.Env, k.Account.DisplayName, k.ID, k.Role)
	if k.Role == auth.RoleCarrier && k.Account.Env == schemas.EnvLive {
		secret, err := signature.NewSecret()
		if err != nil {
			return err
		}
		if err := secrets.SetSigningSecret(ctx, k.ID, secret); err != nil {
			// A live carrier key without a secret could push nothing.
			if _, rerr := store.RevokeKey(ctx, k.ID); rerr != nil {
				return errors.Join(err, rerr)
			}
			return fmt.Errorf("the key was revoked: %w", err)
		}
		fmt.Fprintln(out, "Signing secret of its pushes (Standard Webhooks webhook-signature, or Notification-Signature), shown once:")
		fmt.Fprintln(out, secret)
	}
	fmt.Fprintln(out, "This key is shown once; store it now:")
	fmt.Fprintln(out, key)
	return nil
}

// adminList prints every key; UNMATCHED is a carrier key's count of pushed
// events that matched no tracking of its SCAC (and when the last was).
func adminList(ctx context.Context, store *auth.Store, unmatched map[string]stage.Unmatched, out io.Writer) error {
	keys, err := store.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tENV\tDISPLAY NAME\tPLAN\tACCOUNT\tKEY ID\tKEY\tROLE\tSCAC\tCREATED\tSTATUS\tUNMATCHED")
	for _, k := range keys {
		status := "active"
		if k.RevokedAt != nil {
			status = "revoked " + k.RevokedAt.UTC().Format("2006-01-02T15:04:05Z")
		}
		plan := k.Account.Plan
		if plan == "" {
			plan = "-"
		}
		scac := k.SCAC
		if scac == "" {
			scac = "-"
		}
		um := "-"
		if u, ok := unmatched[k.KeyID]; ok {
			um = fmt.Sprintf("%d (last %s %s)", u.Events, u.LastReference, u.LastAt.UTC().Format("2006-01-02T15:04:05Z"))
		} else if k.Role == auth.RoleCarrier {
			um = "0"
		}
		account := "active"
		switch {
		case k.Account.Disabled:
			account = "disabled"
		case !k.Account.Active:
			account = "no-keys"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.Account.ClientSlug, k.Account.Env, k.Account.DisplayName,
			plan, account, k.KeyID, k.Hint, k.Role, scac, k.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), status, um)
	}
	return tw.Flush()
}

// adminRebuildJourneys rebuilds the journey read model from the topics into
// a new generation while the current one keeps serving, then switches.
func adminRebuildJourneys(ctx context.Context, cfg Config, log *slog.Logger) error {
	ch, err := clickhouse.OpenAs(ctx, cfg.ClickHouseAddr, cfg.ClickHouseDB, cfg.clickHouse())
	if err != nil {
		return err
	}
	defer ch.Close()
	// Every migrator takes the lock the stages take (migrateClickHouse).
	pool, err := postgres.Open(ctx, cfg.PGURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := migrateClickHouse(ctx, pool, ch, log); err != nil {
		return err
	}
	gen, err := projector.RebuildJourneys(ctx, projector.Config{}, projector.Deps{Brokers: cfg.brokers(), Namespace: cfg.KafkaNamespace, CH: ch, Log: log})
	if err != nil {
		return err
	}
	fmt.Printf("journeys rebuilt: generation %d is live\n", gen)
	return nil
}
