package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-fuego/fuego"
)

var timeType = reflect.TypeOf(Time{})

// openAPISchema describes Time as what it marshals to, an RFC 3339 string
// (the generator sees a struct without exported fields). It becomes the
// component "Time": the generator keeps a struct's component only when it
// has a properties map, so it gets an empty one (not written out).
func openAPISchema(_ string, t reflect.Type, _ reflect.StructTag, schema *openapi3.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		schema.Type = &openapi3.Types{openapi3.TypeString}
		schema.Format = "date-time"
		schema.Description = "RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z"
		schema.Properties = openapi3.Schemas{}
	}
	return nil
}

// tidyOpenAPI removes from doc what fuego adds but the API does not do,
// which generated clients would otherwise offer on every call: the Accept
// header parameter and XML bodies (answers are always JSON), a body on
// 304 Not Modified, and the
// schemas left unused once the routes' own replaced fuego's defaults
// (its RFC 9457 error body: every error here is {"message": ...}).
func tidyOpenAPI(doc *openapi3.T) {
	if doc == nil || doc.Paths == nil {
		return
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			kept := op.Parameters[:0]
			for _, p := range op.Parameters {
				if p.Value != nil && p.Value.In == openapi3.ParameterInHeader && p.Value.Name == "Accept" {
					continue
				}
				kept = append(kept, p)
			}
			op.Parameters = kept
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				delete(op.RequestBody.Value.Content, "application/xml")
			}
			if op.Responses != nil {
				for code, r := range op.Responses.Map() {
					if r.Value == nil {
						continue
					}
					delete(r.Value.Content, "application/xml")
					if code == "304" { // never has a body
						r.Value.Content = nil
					}
				}
			}
		}
	}
	dropUnusedSchemas(doc)
}

// dropUnusedSchemas removes component schemas nothing refers to, until
// none is left (a removed schema may have been another's only user).
func dropUnusedSchemas(doc *openapi3.T) {
	if doc.Components == nil {
		return
	}
	for {
		raw, err := json.Marshal(doc)
		if err != nil {
			return // the document is served as it is; its own marshalling reports the error
		}
		text := string(raw)
		removed := false
		for name, schema := range doc.Components.Schemas {
			ref := `"#/components/schemas/` + name + `"`
			own, _ := json.Marshal(schema)
			// A schema referring to itself only is unused too.
			if strings.Count(text, ref) == strings.Count(string(own), ref) {
				delete(doc.Components.Schemas, name)
				removed = true
			}
		}
		if !removed {
			return
		}
	}
}

// JSONBody documents a route's JSON request body with schema, for bodies
// the handler reads itself and whose Go type fuego cannot describe (a map,
// or one event or an array of them).
func JSONBody(description string, schema *openapi3.Schema) fuego.RouteOption {
	return func(r *fuego.BaseRoute) {
		r.Operation.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().
			WithDescription(description).WithRequired(true).WithJSONSchema(schema)}
	}
}
