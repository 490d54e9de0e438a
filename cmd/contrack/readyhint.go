package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/contrack/contrack/platform/httpapi"
)

// announceReady waits until the process is ready (the API listening, every
// stage up, the stores answering), looking at each tick, then logs it once
// and, on a terminal, prints how to make a key and call the API: last, so
// the start-up's log lines do not scroll it away. It returns when ctx ends
// or once announced.
func announceReady(ctx context.Context, health *httpapi.Health, ticks <-chan time.Time, log *slog.Logger, cfg Config, term io.Writer) {
	for !health.Ready(ctx, "http") {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
	}
	log.Info("contrack ready", "http", cfg.HTTPAddr)
	if term != nil {
		fmt.Fprint(term, readyHint(cfg.HTTPAddr, os.Args[0]))
	}
}

// readyHint is what a developer needs next, for a terminal.
func readyHint(addr, binary string) string {
	return fmt.Sprintf(`
contrack is ready on http://%[1]s (the console at /console/, the API at /docs; Ctrl-C stops it).
In another shell, make a sandbox key and call the API with it:
  KEY=$(%[2]s admin create-key --client acme --env sandbox | tail -n1)
  curl -s %[1]s/account -H "x-api-key: $KEY"

`, addr, binary)
}

// terminal is f when it is a terminal (a character device), else nil.
func terminal(f *os.File) io.Writer {
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return f
	}
	return nil
}
