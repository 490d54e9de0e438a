// Package reference locates the third-party and contract data the tests use,
// kept in this repository so that a clone with nothing beside it passes
// `make test`. What each file is, where it comes from and under which licence
// is in README.md beside this file; SHA256SUMS pins every byte.
package reference

import (
	"path/filepath"
	"runtime"
)

// dir is this package's directory, found from the source file's path so a
// test in any package can reach the data whatever its working directory.
var dir = func() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("reference: cannot locate the source directory")
	}
	return filepath.Dir(file)
}()

// Path joins elem to the reference directory, e.g. Path("dcsa", "samples",
// "tnt-220-response.json").
func Path(elem ...string) string { return filepath.Join(append([]string{dir}, elem...)...) }

// DCSA is the directory of the DCSA OpenAPI documents (the $ref targets of
// EVENT_DOMAIN 2.0.2 and the Track & Trace APIs).
func DCSA() string { return Path("dcsa") }

// Samples is the directory of DCSA's example messages: real TNT 2.2
// responses, good and broken, and the TNT 3.0 requests and responses
// (tnt-300-*.json).
func Samples() string { return Path("dcsa", "samples") }

// TNT3 is DCSA Track & Trace 3.0.0, the OpenAPI document every TNT 3.0
// message contrack reads or emits is held to.
func TNT3() string { return Path("dcsa", "TNT_v3.0.0.yaml") }

// Carriers is the corpus of real, public carrier payloads; manifest.json
// beside them lists each file's source, licence, key facts and deviations.
func Carriers() string { return Path("carriers") }

// Messages is the interface's error table and success messages as JSON
// (docs/interface.md, "Errors"), the data the contract tests are driven by.
func Messages() string { return Path("spec", "messages.json") }

// StandardWebhooksVector is a signature made with the Standard Webhooks
// reference library, which our signer must reproduce.
func StandardWebhooksVector() string { return Path("standard-webhooks-vector.json") }
