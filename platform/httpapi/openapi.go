package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-fuego/fuego"
)

var timeType = reflect.TypeOf(Time{})

// openAPISchema corrects what the schema generator says of two kinds of
// field. Time is what it marshals to, an RFC 3339 string (the generator
// sees a struct without exported fields); it becomes the component "Time"
// (the generator keeps a struct's component only when it has a properties
// map, so it gets an empty one, not written out). A pointer to a struct
// may be null (GET /account's usagePlan): the generator drops that from
// the reference, so the property becomes anyOf the component and null.
func openAPISchema(_ string, t reflect.Type, _ reflect.StructTag, schema *openapi3.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == timeType {
		schema.Type = &openapi3.Types{openapi3.TypeString}
		schema.Format = "date-time"
		schema.Description = "RFC 3339 time in UTC with milliseconds, e.g. 2026-11-22T20:13:50.870Z"
		schema.Properties = openapi3.Schemas{}
		return nil
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct || f.Type.Elem() == timeType {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if p := schema.Properties[name]; p != nil && p.Ref != "" {
			schema.Properties[name] = &openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: openapi3.SchemaRefs{
				&openapi3.SchemaRef{Ref: p.Ref, Value: p.Value},
				&openapi3.SchemaRef{Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeNull}}},
			}}}
		}
	}
	return nil
}

// tidyOpenAPI removes from doc what fuego adds but the API does not do,
// which generated clients would otherwise offer on every call: the Accept
// header parameter and XML bodies (answers are always JSON), a body on
// 304 Not Modified, and the
// "nullable" (a 3.0 keyword; the document is 3.1), and the
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
	nullAsType(doc)
	dropUnusedSchemas(doc)
}

// nullAsType writes OpenAPI 3.0's "nullable: true", which the generator
// emits but a 3.1 document does not have, as 3.1 says it: "null" among
// the schema's types.
func nullAsType(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.Nullable {
			s.Nullable = false
			if s.Type != nil && !s.Type.Includes(openapi3.TypeNull) {
				types := append(*s.Type, openapi3.TypeNull)
				s.Type = &types
			}
		}
		for _, p := range s.Properties {
			walk(p)
		}
		for _, list := range []openapi3.SchemaRefs{s.AnyOf, s.OneOf, s.AllOf} {
			for _, r := range list {
				walk(r)
			}
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
	}
	if doc.Components != nil {
		for _, ref := range doc.Components.Schemas {
			walk(ref)
		}
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				if p.Value != nil {
					walk(p.Value.Schema)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(mt.Schema)
				}
			}
			if op.Responses != nil {
				for _, r := range op.Responses.Map() {
					if r.Value != nil {
						for _, mt := range r.Value.Content {
							walk(mt.Schema)
						}
					}
				}
			}
		}
	}
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
