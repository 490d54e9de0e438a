package commandapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-fuego/fuego"
	"github.com/go-fuego/fuego/option"

	"github.com/contrack/contrack/platform/auth"
	"github.com/contrack/contrack/platform/httpapi"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/schemas/carriers"
	"github.com/contrack/contrack/schemas/iso6346"
)

// Messages of carrier inference.
const (
	msgMissingNumber = "Missing Parameter 'number'"
	msgBadKind       = "Query parameter 'kind' must be container, booking or bill"
	msgLongNumber    = "Query parameter 'number' is limited to 64 characters"
)

// msgUndetermined is the 400 of a subscription whose carrier cannot be inferred.
func msgUndetermined(value string) string {
	return fmt.Sprintf("Could not determine the carrier for '%s'; provide scacCode", value)
}

// InferResponse answers GET /carrier/infer.
type InferResponse struct {
	Number string `json:"number"`
	// Kind is container, booking or bill.
	Kind       string                    `json:"kind"`
	Candidates []carriers.InferCandidate `json:"candidates"`
	// Probed lists the carriers asked (absent when none was).
	Probed []carriers.InferProbe `json:"probed,omitempty"`
}

func registerInfer(s *fuego.Server, deps api) {
	fuego.Get(s, "/carrier/infer", func(c fuego.ContextNoBody) (InferResponse, error) {
		return inferHandler(c, deps)
	},
		option.OperationID("inferCarrier"),
		option.Summary("Which carrier a container, booking or bill belongs to"),
		option.Description("Looks the number up in contrack's prefix tables: a container's owner code (e.g. MSKU → MAEU), a bill of lading or booking prefix (e.g. MEDU → MSCU). "+
			"Where the prefix names no single carrier (a leasing company's box, an unknown prefix), the carriers this account has credentials for are asked, in parallel and within a time limit, "+
			"with the account's own credentials and environment (sandbox keys ask the sandbox carriers): method probe, and probed lists every answer. "+
			"POST /subscription/equipment without scacCode subscribes to the carrier when there is exactly one candidate."),
		option.Query("number", "container, booking or bill of lading number (required)"),
		option.Query("kind", "container, booking or bill; default: container for a valid ISO 6346 container number, bill when it starts with a bill prefix, "+
			"a 400 for one that looks like a container number but is not (a wrong check digit), else booking"),
		option.AddResponse(400, "Missing number, bad kind or invalid container number", fuego.Response{Type: httpapi.Body{}}),
		option.AddResponse(429, "Over the usage plan's rate, or the probes needed exceed the account's carrier probe budget (\"Too many carrier probes: …\", Retry-After)", fuego.Response{Type: httpapi.Body{}}),
		option.Tags("Carrier credentials"),
	)
}

// kindOf guesses what kind of number GET /carrier/infer was given: a valid
// ISO 6346 number is a container (an MSC bill like MEDU1234567 can look like
// one but for its check digit), one starting with a bill prefix a bill. One
// that looks like a container number but is not one (a wrong check digit, a
// digit short) is a container typed wrong, not a booking to ask every
// carrier about: kindOf answers its 400.
func kindOf(number string) (string, error) {
	n := strings.ToUpper(strings.ReplaceAll(number, " ", ""))
	if iso6346.Valid(n) {
		return "container", nil
	}
	if carriers.GuessCarrier("bill", n).Known {
		return "bill", nil
	}
	if iso6346.LooksLike(n) {
		return "", httpapi.BadRequest(msgInvalidContainer(number, n))
	}
	return "booking", nil
}

// msgInvalidContainer is the 400 of a container number that is not one:
// value as the caller spelt it, and what is wrong with norm, its upper-case
// form without spaces (the check digit, the shape, the category letter).
func msgInvalidContainer(value, norm string) string {
	return fmt.Sprintf("Invalid container number '%s': %s", value, iso6346.Problem(norm))
}

func inferHandler(c fuego.ContextNoBody, deps api) (InferResponse, error) {
	k, _ := auth.FromContext(c.Context())
	q := c.Request().URL.Query()
	number := strings.TrimSpace(q.Get("number"))
	if number == "" {
		return InferResponse{}, httpapi.BadRequest(msgMissingNumber)
	}
	kind := strings.ToLower(strings.TrimSpace(q.Get("kind")))
	switch kind {
	case "":
		var err error
		if kind, err = kindOf(number); err != nil {
			return InferResponse{}, err
		}
	case "container", "booking", "bill":
	default:
		return InferResponse{}, httpapi.BadRequest(msgBadKind)
	}
	if kind == "container" {
		norm := strings.ToUpper(strings.ReplaceAll(number, " ", ""))
		if !iso6346.Valid(norm) {
			return InferResponse{}, httpapi.BadRequest(msgInvalidContainer(number, norm))
		}
		number = norm
	}
	if len(number) > 64 {
		return InferResponse{}, httpapi.BadRequest(msgLongNumber)
	}
	candidates, probed, err := deps.inferCarrier(c.Context(), k.Account, kind, number)
	if err != nil {
		return InferResponse{}, err
	}
	return InferResponse{Number: number, Kind: kind, Candidates: candidates, Probed: probed}, nil
}

// inferCarrier finds the carriers a shipment identifier may belong to: the
// one its prefix names or, when that is ambiguous or unknown, those of the
// account's credentialed carriers that answer a probe with the shipment
// (schemas/carriers: ToProbe, Probe), each probe spent from the account's
// budget. Candidates is never nil. Probes use only acct's credentials, in
// acct's environment, bounded by InferTimeout and InferConcurrency.
func (d api) inferCarrier(ctx context.Context, acct auth.Account, kind, value string) ([]carriers.InferCandidate, []carriers.InferProbe, error) {
	g := carriers.GuessCarrier(kind, value)
	if g.SCAC != "" {
		return []carriers.InferCandidate{{ScacCode: g.SCAC, Method: g.Method, Detail: g.Prefix}}, nil, nil
	}
	if d.Shipments == nil {
		return []carriers.InferCandidate{}, nil, nil
	}
	creds, err := loadAccountCredentials(ctx, d.Deps, acct.ID)
	if err != nil {
		return nil, nil, err
	}
	asked := carriers.ToProbe(g, creds)
	// Every carrier asked is one probe of the account's budget: all or none.
	if err := d.probes.take(acct.ID, len(asked), d.Now()); err != nil {
		return nil, nil, err
	}
	candidates, probed, err := carriers.Probing{Prober: d.Shipments, Env: acct.Env, Account: acct.ID, Kind: kind, Value: value,
		Timeout: d.InferTimeout, Concurrency: d.InferConcurrency}.Probe(ctx, g, asked, creds)
	if err != nil {
		return nil, nil, fmt.Errorf("infer carrier: %w", err)
	}
	return candidates, probed, nil
}

// loadAccountCredentials decrypts every carrier's credentials of an account.
func loadAccountCredentials(ctx context.Context, d Deps, accountID string) (map[string]map[string]string, error) {
	rows, err := d.Pool.Query(ctx, `SELECT scac, fields_enc FROM carrier_credentials WHERE account_id = $1`, accountID)
	if err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	defer rows.Close()
	out := map[string]map[string]string{}
	for rows.Next() {
		var scac string
		var enc []byte
		if err := rows.Scan(&scac, &enc); err != nil {
			return nil, fmt.Errorf("read credentials: %w", err)
		}
		plain, err := d.Box.Open(enc, secretbox.CarrierCredentialsContext(accountID, scac))
		if err != nil {
			return nil, fmt.Errorf("open credentials of %s: %w", scac, err)
		}
		var fields map[string]string
		if err := json.Unmarshal(plain, &fields); err != nil {
			return nil, fmt.Errorf("decode credentials of %s: %w", scac, err)
		}
		out[scac] = fields
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read credentials: %w", err)
	}
	return out, nil
}
