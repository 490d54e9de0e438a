package main

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// listenAddr is an address a process listens on, with the variable that sets it.
type listenAddr struct {
	addr, variable string
}

// allListeners are the addresses `contrack all` listens on: the API, the
// sandbox carriers, the admin listener (unless off) and the embedded broker
// (unless KAFKA_BROKERS is set).
func allListeners(cfg Config) []listenAddr {
	out := []listenAddr{{cfg.HTTPAddr, "CONTRACK_HTTP_ADDR"}, {cfg.SandboxAddr, "CONTRACK_SANDBOX_ADDR"}}
	if cfg.AdminAddr != "" {
		out = append(out, listenAddr{cfg.AdminAddr, "CONTRACK_ADMIN_ADDR"})
	}
	if len(cfg.KafkaBrokers) == 0 {
		out = append(out, listenAddr{cfg.EmbeddedKafkaAddr, "CONTRACK_EMBEDDED_KAFKA_ADDR"})
	}
	return out
}

// errPortsInUse marks checkListeners' error.
var errPortsInUse = errors.New("ports in use")

// checkListeners tries every address before anything starts, so all the
// ones taken are reported at once (one message), not one per start.
func checkListeners(addrs []listenAddr) error {
	var taken []string
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			why := "in use"
			if !strings.Contains(err.Error(), "address already in use") {
				why = err.Error()
			}
			taken = append(taken, fmt.Sprintf("%s (%s): %s", a.addr, a.variable, why))
			continue
		}
		_ = ln.Close() // only a check: the stage listens again
	}
	if len(taken) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; stop what holds them (e.g. another contrack) or set those variables to free addresses",
		errPortsInUse, strings.Join(taken, ", "))
}
