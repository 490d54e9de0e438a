package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/contrack/contrack/platform/testenv"
)

// openAPIGolden is the committed copy of the document /openapi.json
// serves; the SDKs (sdk/) are generated from it.
const openAPIGolden = "../../docs/openapi.json"

// servedOpenAPI is the document the API of `contrack all` serves, indented.
func servedOpenAPI(t *testing.T) []byte {
	t.Helper()
	srv := newAPIServer(context.Background(), Config{}, testenv.Log(t), &infra{}, nil, nil)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /openapi.json: %d %v", resp.StatusCode, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// TestOpenAPIDocument: docs/openapi.json is what the server serves (-update
// rewrites it; then `make sdk` regenerates the clients).
func TestOpenAPIDocument(t *testing.T) {
	served := servedOpenAPI(t)
	if *update {
		if err := os.WriteFile(openAPIGolden, served, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	golden, err := os.ReadFile(openAPIGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(golden, served) {
		t.Errorf("docs/openapi.json differs from the served document: run go test ./cmd/contrack -run TestOpenAPIDocument -update, then make sdk\n%s",
			firstDifference(string(golden), string(served)))
	}
}

// TestOpenAPIOperations: every operation has its own lowerCamelCase
// operationId (generated clients name their methods after it; fuego's
// default is "METHOD_/path") and says JSON only.
func TestOpenAPIOperations(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string          `json:"operationId"`
			RequestBody json.RawMessage `json:"requestBody"`
			Responses   json.RawMessage `json:"responses"`
			Parameters  []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(servedOpenAPI(t), &doc); err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`^[a-z][A-Za-z]+$`)
	seen := map[string]string{}
	for path, ops := range doc.Paths {
		for method, op := range ops {
			where := strings.ToUpper(method) + " " + path
			if !name.MatchString(op.OperationID) {
				t.Errorf("%s: operationId %q; give the route option.OperationID(\"lowerCamelCase\")", where, op.OperationID)
			}
			if other, dup := seen[op.OperationID]; dup {
				t.Errorf("%s and %s share operationId %q", where, other, op.OperationID)
			}
			seen[op.OperationID] = where
			if bytes.Contains(op.RequestBody, []byte("application/xml")) || bytes.Contains(op.Responses, []byte("application/xml")) {
				t.Errorf("%s lists XML, which the API never reads or writes", where)
			}
			for _, p := range op.Parameters {
				if p.In == "header" && p.Name == "Accept" {
					t.Errorf("%s lists an Accept header parameter", where)
				}
			}
		}
	}
	if len(seen) < 20 {
		t.Errorf("%d operations; the API has at least 20", len(seen))
	}
}

// firstDifference shows the first differing line of two texts.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  committed: %s\n  served:    %s", i+1, x, y)
		}
	}
	return ""
}
