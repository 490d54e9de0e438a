// Package carriers is the registry of supported carriers: the one place a
// carrier is added. The command side validates credentials against it, the
// poller picks an adapter by its Format, the normaliser a parser.
package carriers

import "sort"

// Format is the source format a carrier's API serves.
type Format string

// Source formats.
const (
	FormatTNT22  Format = "dcsa-tnt-2.2"
	FormatTNT12  Format = "dcsa-tnt-1.2"
	FormatIFTSTA Format = "edifact-iftsta"
	FormatCOSCO  Format = "cosco-json"
	// FormatTNT3 is a DCSA Track & Trace 3.0 producer's GET /events page.
	FormatTNT3 Format = "dcsa-tnt-3.0"
	// FormatPushed is a DCSA event (or array of them) pushed to POST /events.
	FormatPushed Format = "dcsa-pushed"
	// FormatPushedTNT3 is a DCSA Track & Trace 3.0 event list pushed to
	// POST /events ({"events": [...]}, recognised by its shape or by
	// API-Version 3).
	FormatPushedTNT3 Format = "dcsa-pushed-tnt-3.0"
)

// Credential field names.
const (
	FieldAPIKey       = "apiKey"
	FieldClientID     = "clientId"
	FieldClientSecret = "clientSecret"
)

// Carrier describes one supported carrier.
type Carrier struct {
	SCAC string
	Name string
	// RequiredFields lists the credential fields in the order their absence is reported.
	RequiredFields []string
	Format         Format
	// Auth names how the adapter authenticates, for documentation.
	Auth string
}

var registry = map[string]Carrier{
	"MAEU": {SCAC: "MAEU", Name: "Maersk", RequiredFields: []string{FieldAPIKey}, Format: FormatTNT22, Auth: "Consumer-Key header"},
	"HLCU": {SCAC: "HLCU", Name: "Hapag-Lloyd", RequiredFields: []string{FieldClientID, FieldClientSecret}, Format: FormatTNT22, Auth: "X-IBM-Client-Id / X-IBM-Client-Secret headers"},
	"CMDU": {SCAC: "CMDU", Name: "CMA CGM", RequiredFields: []string{FieldAPIKey}, Format: FormatTNT22, Auth: "KeyId header"},
	"EGLV": {SCAC: "EGLV", Name: "Evergreen", RequiredFields: []string{FieldClientID, FieldClientSecret}, Format: FormatTNT22, Auth: "client credentials exchanged for a token"},
	"MSCU": {SCAC: "MSCU", Name: "MSC", RequiredFields: []string{FieldClientID, FieldClientSecret}, Format: FormatTNT22, Auth: "OAuth2 client credentials"},
	"HDMU": {SCAC: "HDMU", Name: "HMM", RequiredFields: []string{FieldAPIKey}, Format: FormatTNT22, Auth: "x-api-key header"},
	"ONEY": {SCAC: "ONEY", Name: "Ocean Network Express", RequiredFields: []string{FieldClientID, FieldClientSecret}, Format: FormatTNT12, Auth: "OAuth2 client credentials"},
	"OOLU": {SCAC: "OOLU", Name: "OOCL", RequiredFields: []string{FieldAPIKey}, Format: FormatIFTSTA, Auth: "EDI mailbox over HTTPS, apiKey header"},
	"COSU": {SCAC: "COSU", Name: "COSCO Shipping", RequiredFields: []string{FieldClientID, FieldClientSecret}, Format: FormatCOSCO, Auth: "key + HMAC-signed requests"},
	"ZIMU": {SCAC: "ZIMU", Name: "ZIM", RequiredFields: []string{FieldClientID, FieldClientSecret}, Format: FormatTNT3, Auth: "OAuth2 client credentials"},
}

// Lookup returns the carrier with that SCAC code (exact, upper case).
func Lookup(scac string) (Carrier, bool) {
	c, ok := registry[scac]
	return c, ok
}

// All returns every supported carrier, sorted by SCAC.
func All() []Carrier {
	out := make([]Carrier, 0, len(registry))
	for _, c := range registry {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SCAC < out[j].SCAC })
	return out
}

// IsSecretField reports whether a credential field is secret (masked on read).
func IsSecretField(name string) bool { return name != FieldClientID }
