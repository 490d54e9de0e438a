package tnt3test_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contrack/contrack/reference"
	"github.com/contrack/contrack/schemas/tnt3/tnt3test"
)

// DCSA's own example messages pass, as requests and as answers.
func TestPublishedSamplesValidate(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(reference.Samples(), "tnt-300-*.json"))
	if len(files) < 7 {
		t.Fatalf("%d TNT 3.0 samples", len(files))
	}
	h := http.Header{"Api-Version": {"3.0.0"}}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		if strings.Contains(name, "-request-") {
			tnt3test.Must(t, tnt3test.PostEventsRequest(h, raw))
		} else {
			tnt3test.Must(t, tnt3test.GetEventsResponse("equipmentReference=APZU4812090", 200, h, raw))
		}
	}
}

// The validator is not a rubber stamp: what breaks the published schema
// is refused, each for its reason.
func TestValidatorRefuses(t *testing.T) {
	h := http.Header{"Api-Version": {"3.0.0"}}
	for name, c := range map[string]struct {
		check func() error
		want  string
	}{
		"date-time": {func() error {
			return tnt3test.Event([]byte(`{"eventID":"a","eventDateTime":"yesterday"}`))
		}, "date-time"},
		"maxLength": {func() error {
			return tnt3test.Event([]byte(`{"equipmentDetails":{"equipmentReference":"APZU48120901"}}`))
		}, "maximum string length"},
		"type": {func() error {
			return tnt3test.PostEventsRequest(h, []byte(`{"events":[{"isRetracted":"yes"}]}`))
		}, "boolean"},
		"events not an array": {func() error {
			return tnt3test.GetEventsResponse("", 200, h, []byte(`{"events":{}}`))
		}, "array"},
		"unknown query parameter type": {func() error {
			return tnt3test.GetEventsResponse("limit=ten", 200, h, []byte(`{"events":[]}`))
		}, "limit"},
		"feedback severity too long": {func() error {
			return tnt3test.PostEventsResponse([]byte(`{"events":[]}`), 400, h,
				[]byte(`{"feedbackElements":[{"severity":"`+strings.Repeat("E", 51)+`","message":"m"}]}`))
		}, "maximum string length"},
	} {
		t.Run(name, func(t *testing.T) {
			err := c.check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error about %s", err, c.want)
			}
		})
	}
}
