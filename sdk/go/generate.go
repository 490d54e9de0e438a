package contrack

// api.gen.go is generated from the server's OpenAPI document (docs/openapi.json,
// what /openapi.json serves) by the pinned oapi-codegen below: `make sdk`, or
// `go generate` here. TestGeneratedCodeIsFresh fails when they differ.
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../docs/openapi.json
