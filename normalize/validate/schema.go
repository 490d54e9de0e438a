// Package validate checks events against DCSA EVENT_DOMAIN 2.0.2, the
// standard every contrack event must meet. It has two halves:
//
//   - Validator compiles the published OpenAPI document with a real JSON
//     Schema implementation. It needs the reference files on disk, so it is
//     used by tests (every parser's golden test runs every emitted event
//     through it) and by tools, not on the hot path.
//   - The fast checks (Timestamp, EventTimes, the Enum code lists, Structural)
//     are plain Go that the parsers call per field. A test keeps the code
//     lists equal to the ones in the YAML, so the two halves cannot drift.
package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/contrack/contrack/schemas/dcsa"
)

// swaggerHub is the prefix of every $ref between DCSA domains; the rest is
// "<DOMAIN>/<version>". README.md in the reference directory maps each to a
// local file, which domainFile reproduces.
const swaggerHub = "https://api.swaggerhub.com/domains/dcsaorg/"

// EventDomainURL is the URL the EVENT_DOMAIN 2.0.2 document is known by; the
// schemas compiled by New are fragments of it.
const EventDomainURL = swaggerHub + "EVENT_DOMAIN/2.0.2"

// domainFiles maps a SwaggerHub domain name to the stem of its local file.
var domainFiles = map[string]string{
	"EVENT_DOMAIN":         "event_domain",
	"DCSA_DOMAIN":          "dcsa_domain",
	"LOCATION_DOMAIN":      "dcsa_location",
	"DOCUMENTATION_DOMAIN": "documentation_domain",
	"ERROR_DOMAIN":         "error_domain",
}

// domainFile returns the local file name for a SwaggerHub domain URL
// (without fragment), e.g. ".../LOCATION_DOMAIN/2.0.2" → "dcsa_location_v2.0.2.yaml".
func domainFile(url string) (string, error) {
	rest, ok := strings.CutPrefix(url, swaggerHub)
	if !ok {
		return "", fmt.Errorf("validate: %s is not a DCSA SwaggerHub domain (no network access is used)", url)
	}
	domain, version, ok := strings.Cut(rest, "/")
	stem, known := domainFiles[domain]
	if !ok || !known || version == "" || strings.ContainsAny(version, "/\\") {
		return "", fmt.Errorf("validate: no local file for DCSA domain %q", rest)
	}
	return stem + "_v" + version + ".yaml", nil
}

// loader serves SwaggerHub domain URLs from the reference directory.
type loader struct{ dir string }

func (l loader) Load(url string) (any, error) {
	name, err := domainFile(url)
	if err != nil {
		return nil, err
	}
	return loadYAML(filepath.Join(l.dir, name))
}

// loadYAML reads an OpenAPI YAML document into the JSON value model the
// schema compiler expects (string-keyed maps, json.Number numbers).
func loadYAML(path string) (any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("validate: parse %s: %w", path, err)
	}
	// A JSON round trip turns YAML timestamps (unquoted examples) into
	// strings and numbers into json.Number, which is what jsonschema wants.
	js, err := json.Marshal(stringKeys(doc))
	if err != nil {
		return nil, fmt.Errorf("validate: convert %s: %w", path, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, fmt.Errorf("validate: convert %s: %w", path, err)
	}
	return v, nil
}

// stringKeys converts the map[any]any yaml.v3 produces for maps with
// non-string keys (e.g. response codes) into map[string]any.
func stringKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = stringKeys(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = stringKeys(e)
		}
		return v
	}
	return v
}

// Validator validates events against the equipmentEvent and transportEvent
// schemas of EVENT_DOMAIN 2.0.2. It is safe for concurrent use.
type Validator struct {
	equipment *jsonschema.Schema
	transport *jsonschema.Schema
}

// New compiles the 2.0.2 event schemas from refDir, the directory holding
// event_domain_v2.0.2.yaml and the domains it references (in this repository's
// layout: reference/dcsa). Formats (date-time, uuid) are asserted.
//
// The schemas are compiled with JSON Schema draft 4 semantics, the closest
// draft to OpenAPI 3.0's schema object: a $ref's sibling keywords are ignored,
// as OpenAPI 3.0 says, and OpenAPI-only keywords (example, nullable,
// deprecated) are annotations.
func New(refDir string) (*Validator, error) {
	doc, err := loadYAML(filepath.Join(refDir, "event_domain_v2.0.2.yaml"))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.AssertFormat()
	c.UseLoader(loader{dir: refDir})
	if err := c.AddResource(EventDomainURL, doc); err != nil {
		return nil, fmt.Errorf("validate: add event domain: %w", err)
	}
	v := &Validator{}
	if v.equipment, err = c.Compile(EventDomainURL + "#/components/schemas/equipmentEvent"); err != nil {
		return nil, fmt.Errorf("validate: compile equipmentEvent: %w", err)
	}
	if v.transport, err = c.Compile(EventDomainURL + "#/components/schemas/transportEvent"); err != nil {
		return nil, fmt.Errorf("validate: compile transportEvent: %w", err)
	}
	return v, nil
}

// ErrUnknownEventType is returned for an event whose eventType is neither
// EQUIPMENT nor TRANSPORT: contrack emits no other kind, so there is no
// schema to pick.
var ErrUnknownEventType = errors.New("validate: eventType is not EQUIPMENT or TRANSPORT")

// Validate marshals e as it would go on the wire and validates it.
func (v *Validator) Validate(e dcsa.Event) error {
	raw, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("validate: marshal event: %w", err)
	}
	return v.ValidateJSON(raw)
}

// ValidateJSON validates one marshalled event against the schema its
// eventType selects.
func (v *Validator) ValidateJSON(raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	obj, _ := inst.(map[string]any)
	var sch *jsonschema.Schema
	switch obj["eventType"] {
	case dcsa.EventTypeEquipment:
		sch = v.equipment
	case dcsa.EventTypeTransport:
		sch = v.transport
	default:
		return ErrUnknownEventType
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	return nil
}
