package main

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/contrack/contrack/platform/signature"
)

// receiver is the subscriber's webhook: it verifies both signatures of every
// request before trusting it, and records when each event arrived.
type receiver struct {
	ledger *ledger
	srv    *http.Server
	ln     net.Listener

	mu      sync.Mutex
	secret  string
	secrets chan string // verification messages' secrets
	down    bool        // answer 503 to everything (the receiver is "down")
	badSigs int
	bad     int // requests that were not JSON payloads
}

func newReceiver(l *ledger) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{ledger: l, ln: ln, secrets: make(chan string, 16)}
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }() // ends with ErrServerClosed at close
	return r, nil
}

func (r *receiver) url() string { return "http://" + r.ln.Addr().String() + "/hook" }

func (r *receiver) setDown(down bool) {
	r.mu.Lock()
	r.down = down
	r.mu.Unlock()
}

type payload struct {
	Type       string `json:"type"`
	Secret     string `json:"secret"`
	References struct {
		SubscriptionReference string `json:"subscriptionReference"`
		EquipmentNumber       string `json:"equipmentNumber"`
	} `json:"references"`
	Events []struct {
		EquipmentReference string `json:"equipmentReference"`
		EventDateTime      string `json:"eventDateTime"`
	} `json:"events"`
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	now := time.Now()
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	down, secret := r.down, r.secret
	r.mu.Unlock()
	if down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		r.mu.Lock()
		r.bad++
		r.mu.Unlock()
		http.Error(w, "not json", http.StatusBadRequest)
		return
	}
	if p.Type == "webhook.verification" {
		// The verification message carries the secret it is signed with.
		secret = p.Secret
	}
	if !verify(secret, req.Header, body) {
		r.mu.Lock()
		r.badSigs++
		r.mu.Unlock()
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if p.Type == "webhook.verification" {
		r.mu.Lock()
		r.secret = p.Secret
		r.mu.Unlock()
		select {
		case r.secrets <- p.Secret:
		default:
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	for _, e := range p.Events {
		r.ledger.received(e.EquipmentReference, e.EventDateTime, p.References.EquipmentNumber, now)
	}
	w.WriteHeader(http.StatusOK)
}

// verify checks X-Hook-Signature and the Standard Webhooks signature.
func verify(secret string, h http.Header, body []byte) bool {
	if secret == "" {
		return false
	}
	hook := signature.HookSignature(secret, body)
	if subtle.ConstantTimeCompare([]byte(hook), []byte(h.Get("X-Hook-Signature"))) != 1 {
		return false
	}
	sec, err := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
	if err != nil {
		return false
	}
	want, err := signature.StandardSignature(secret, h.Get("webhook-id"), time.Unix(sec, 0), body)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(h.Get("webhook-signature"))) == 1
}
