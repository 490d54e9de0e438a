package stage

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/contrack/contrack/normalize"
)

// A parser that panics dead-letters its record with the panic as the
// reason, and the panic's stack — lost before — is logged, naming the
// function that panicked.
func TestSafeParseLogsThePanicsStack(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	_, err := safeParse(panickingParser, []byte(`{}`), normalize.Envelope{SCAC: "MAEU"}, log)
	if err == nil || err.Error() != "parser panic: index out of range" {
		t.Fatalf("safeParse = %v, want the panic as a parse error", err)
	}
	if out := buf.String(); !strings.Contains(out, "parser panic") || !strings.Contains(out, "panickingParser") {
		t.Fatalf("log %q: want the panic with its stack (naming panickingParser)", out)
	}
}

func panickingParser([]byte, normalize.Envelope) (normalize.Result, error) {
	panic("index out of range")
}
