package deliveries

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/textproto"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"

	"github.com/contrack/contrack/platform/secretbox"
)

// AuthHeader is one header a webhook's receiver authenticates with (POST
// /webhook/configure's authHeaders), sent on every attempt of every
// delivery of the webhook. Name keeps the spelling it was given.
type AuthHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Bounds of a webhook's authHeaders.
const (
	MaxAuthHeaders         = 5
	MaxAuthHeaderNameLen   = 64
	MaxAuthHeaderValueSize = 4096 // bytes
)

// MsgInvalidAuthHeaders starts the 400 message of authHeaders that fail a
// rule; every problem follows, separated by "; ".
const MsgInvalidAuthHeaders = "Invalid authHeaders: "

// framingHeaders are hop-by-hop (RFC 7230 6.1, RFC 9110 7.6.1) or describe
// the message itself: a sender cannot set them on the receiver's behalf.
// Every Proxy-* header is refused too.
var framingHeaders = []string{"Connection", "Keep-Alive", "TE", "Trailer", "Transfer-Encoding", "Upgrade",
	"Host", "Content-Length", "Content-Type", "Content-Encoding", "Expect"}

// DeliveryHeaders are the headers contrack itself sets on a delivery (the
// signatures, User-Agent, a TNT 3.0 body's API-Version, the trace context,
// and what Go's HTTP client adds): an authHeaders entry may not replace
// one. delivery's tests hold this list to what a receiver actually sees.
var DeliveryHeaders = []string{"X-Hook-Signature", "Webhook-Id", "Webhook-Timestamp", "Webhook-Signature",
	"User-Agent", "Api-Version", "Traceparent", "Tracestate", "Baggage", "Accept-Encoding"}

// CheckAuthHeaders returns in as stored (names and values trimmed of
// spaces and tabs, in order of name) or every problem found, each naming
// the header but never its value.
func CheckAuthHeaders(in map[string]string) ([]AuthHeader, []string) {
	var problems []string
	if len(in) > MaxAuthHeaders {
		problems = append(problems, fmt.Sprintf("'authHeaders' has %d headers: at most %d", len(in), MaxAuthHeaders))
	}
	names := make([]string, 0, len(in))
	for name := range in {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]string{}
	var out []AuthHeader
	for _, raw := range names {
		name := strings.Trim(raw, " \t")
		value := strings.Trim(in[raw], " \t")
		field := "'authHeaders." + name + "'"
		switch canon := textproto.CanonicalMIMEHeaderKey(name); {
		case utf8.RuneCountInString(name) > MaxAuthHeaderNameLen:
			problems = append(problems, fmt.Sprintf("'authHeaders' has a name longer than %d characters (%q…)", MaxAuthHeaderNameLen, clipName(name)))
			continue
		case !httpguts.ValidHeaderFieldName(name):
			problems = append(problems, fmt.Sprintf("'authHeaders' has %q, which is not a header name (an RFC 7230 token: letters, digits and !#$%%&'*+-.^_`|~)", name))
			continue
		case isFraming(canon):
			problems = append(problems, field+" is a hop-by-hop or framing header: it cannot be set for the receiver")
			continue
		case isDeliveryHeader(canon):
			problems = append(problems, field+" is a header contrack sets on every delivery")
			continue
		case seen[canon] != "":
			problems = append(problems, fmt.Sprintf("%s repeats %q (header names are case-insensitive)", field, seen[canon]))
			continue
		default:
			seen[canon] = name
		}
		switch {
		case value == "":
			problems = append(problems, field+" has an empty value")
		case len(value) > MaxAuthHeaderValueSize:
			problems = append(problems, fmt.Sprintf("%s has a value over %d bytes", field, MaxAuthHeaderValueSize))
		case !httpguts.ValidHeaderFieldValue(value):
			problems = append(problems, field+" has a line break or another control character in its value")
		case strings.EqualFold(name, "Authorization") && !validAuthorization(value):
			problems = append(problems, field+` must be "Bearer <token>" or "Basic <base64 of user:password>"`)
		default:
			out = append(out, AuthHeader{Name: name, Value: value})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

func isFraming(canon string) bool {
	if strings.HasPrefix(canon, "Proxy-") {
		return true
	}
	for _, h := range framingHeaders {
		if canon == textproto.CanonicalMIMEHeaderKey(h) {
			return true
		}
	}
	return false
}

func isDeliveryHeader(canon string) bool {
	for _, h := range DeliveryHeaders {
		if canon == textproto.CanonicalMIMEHeaderKey(h) {
			return true
		}
	}
	return false
}

// validAuthorization accepts the two schemes a webhook receiver is
// authenticated with: Bearer with a token, Basic with base64 of user:password.
func validAuthorization(v string) bool {
	scheme, cred, ok := strings.Cut(v, " ")
	cred = strings.TrimLeft(cred, " ")
	if !ok || cred == "" || strings.ContainsAny(cred, " \t") {
		return false
	}
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return true
	case strings.EqualFold(scheme, "Basic"):
		plain, err := base64.StdEncoding.DecodeString(cred)
		return err == nil && strings.Contains(string(plain), ":")
	}
	return false
}

func clipName(name string) string {
	r := []rune(name)
	return string(r[:min(len(r), 20)])
}

// SealAuthHeaders is the stored form of a webhook's auth headers
// (webhooks.auth_headers_enc): nil for none.
func SealAuthHeaders(box *secretbox.Box, accountID string, hs []AuthHeader) ([]byte, error) {
	if len(hs) == 0 {
		return nil, nil
	}
	plain, err := json.Marshal(hs)
	if err != nil {
		return nil, err
	}
	return box.Seal(plain, secretbox.WebhookAuthHeadersContext(accountID))
}

// OpenAuthHeaders reads what SealAuthHeaders stored (nil: none).
func OpenAuthHeaders(box *secretbox.Box, accountID string, enc []byte) ([]AuthHeader, error) {
	if len(enc) == 0 {
		return nil, nil
	}
	plain, err := box.Open(enc, secretbox.WebhookAuthHeadersContext(accountID))
	if err != nil {
		return nil, err
	}
	var hs []AuthHeader
	if err := json.Unmarshal(plain, &hs); err != nil {
		return nil, fmt.Errorf("webhook auth headers: %w", err)
	}
	return hs, nil
}
