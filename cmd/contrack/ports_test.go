package main

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// Every address taken is named in one error, with its variable; a free one is not.
func TestCheckListenersReportsEveryPortInUse(t *testing.T) {
	hold := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return ln.Addr().String()
	}
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		a := ln.Addr().String()
		ln.Close()
		return a
	}
	api, broker, sandbox := hold(), hold(), free()
	cfg := Config{HTTPAddr: api, SandboxAddr: sandbox, EmbeddedKafkaAddr: broker}
	err := checkListeners(allListeners(cfg))
	if !errors.Is(err, errPortsInUse) {
		t.Fatalf("err %v, want ports in use", err)
	}
	msg := err.Error()
	for _, want := range []string{api + " (CONTRACK_HTTP_ADDR): in use", broker + " (CONTRACK_EMBEDDED_KAFKA_ADDR): in use"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, sandbox) {
		t.Errorf("%q names the free address %s", msg, sandbox)
	}
	// With KAFKA_BROKERS set the embedded broker's address is not needed.
	cfg.KafkaBrokers = []string{"kafka:9092"}
	if err := checkListeners(allListeners(cfg)); err == nil || strings.Contains(err.Error(), broker) {
		t.Errorf("with KAFKA_BROKERS: %v", err)
	}
	if err := checkListeners(allListeners(Config{HTTPAddr: free(), SandboxAddr: free(), EmbeddedKafkaAddr: free()})); err != nil {
		t.Errorf("free addresses: %v", err)
	}
}
