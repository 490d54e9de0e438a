package httpapi

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-fuego/fuego"
	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"github.com/contrack/contrack/platform/auth"
)

// Authenticator resolves an x-api-key to its key and account.
type Authenticator interface {
	Authenticate(ctx context.Context, plaintext string) (auth.Key, error)
}

// MemoryAuthenticator is an Authenticator that can answer some keys from
// memory (hit true): known keys, keys known to be unknown, malformed keys.
// Only misses are charged to the client address's pre-authentication limit.
type MemoryAuthenticator interface {
	Authenticator
	Cached(plaintext string) (k auth.Key, hit bool, err error)
}

var (
	_ Authenticator       = (*auth.Store)(nil)
	_ MemoryAuthenticator = (*auth.CachedAuthenticator)(nil)
)

// Check is a named dependency probe for /healthz.
type Check struct {
	Name string
	Ping func(ctx context.Context) error
}

// Config configures the server.
type Config struct {
	Addr    string
	Version string
	Log     *slog.Logger
	Auth    Authenticator
	Checks  []Check
	// Limiter enforces usage plans; nil disables rate limiting.
	Limiter *RateLimiter
	// PreAuth limits, per client address, the key look-ups that miss the
	// key cache (each one a store query), before the key is known;
	// PreAuthRefusals, likewise, the requests refused from memory (no key, a
	// malformed or known-unknown one), which cost only CPU and get a more
	// generous limit so a client that is merely fast keeps its 403s. A
	// request over its limit is held until its address's next token (at
	// most MaxPreAuthWait) and then answered normally; beyond that 429 with
	// Retry-After. nil disables either.
	PreAuth         *AddrLimiter
	PreAuthRefusals *AddrLimiter
	// ClientIPHeader names a header a trusted proxy sets to the client
	// address (e.g. X-Real-IP); "" uses the connection's address. It is
	// read only on connections from TrustedProxies.
	ClientIPHeader string
	// TrustedProxies are the networks of the proxies whose ClientIPHeader
	// is believed (the ingress, the edge); empty believes no one.
	TrustedProxies []netip.Prefix
	// OperatorToken is the bearer token of the routes added with
	// HandleOperator on this server; "" refuses them here (serve them on
	// the admin listener, AdminHandler, instead).
	OperatorToken string
	// Health caches the Checks; nil makes one from Checks with a 5 s interval.
	Health *Health
	// Public lists paths served without a key: exact paths, prefixes ending
	// in "/", or "METHOD /path" for one method only.
	Public []string
	// Metrics is the process's registry (NewRegistry): the server counts its
	// requests on it. Nil counts nothing.
	Metrics *prometheus.Registry
	// DocsUI serves /docs/ given the spec URL (every path under /docs/ reaches
	// it, so it can serve its own assets). Nil: a plain page linking the spec,
	// never fuego's default, which loads its viewer from a public CDN.
	DocsUI func(specURL string) http.Handler
}

// Server is the HTTP intake: routes are registered on Fuego (for the
// generated OpenAPI), and the handler chain puts the key check first.
type Server struct {
	cfg      Config
	Fuego    *fuego.Server
	http     *http.Server
	operator map[string]http.Handler // path → handler of operator routes (GET)
	held     chan struct{}           // requests held by the pre-authentication limit
	lookups  singleflight.Group      // key look-ups in flight, by plaintext key
	requests *requestMetrics         // nil: Config.Metrics unset
}

// New returns a server with /healthz, /readyz, /openapi.json and /docs registered.
func New(cfg Config) *Server {
	f := fuego.NewServer(
		fuego.WithoutStartupMessages(),
		fuego.WithoutLogger(),
		// fuego's request logger formatted two records per request for a
		// discarding logger (3 % of the process under load); requestID
		// keeps its X-Request-ID header, and the metrics count requests.
		fuego.WithLoggingMiddleware(fuego.LoggingConfig{DisableRequest: true, DisableResponse: true}),
		fuego.WithDisallowUnknownFields(false),
		fuego.WithSerializer(func(w http.ResponseWriter, r *http.Request, v any) error {
			if st, ok := v.(Streamer); ok && st.StreamJSON(w, r) {
				return nil
			}
			WriteJSON(w, statusOf(w), v)
			return nil
		}),
		fuego.WithErrorSerializer(func(w http.ResponseWriter, r *http.Request, err error) {
			WriteError(w, r, cfg.Log, err)
		}),
		fuego.WithEngineOptions(
			fuego.WithErrorHandler(func(_ context.Context, err error) error { return err }),
			// The API reads and writes JSON only (fuego would also list XML).
			fuego.WithRequestContentType("application/json"),
			fuego.WithResponseContentType("application/json"),
			fuego.WithOpenAPIGeneratorSchemaCustomizer(openAPISchema),
			fuego.WithOpenAPIConfig(fuego.OpenAPIConfig{
				DisableLocalSave: true,
				DisableMessages:  true,
				// Descriptions say what an operation does, not which Go
				// function serves it.
				MiddlewareConfig: fuego.MiddlewareConfig{DisableControllerSection: true, DisableMiddlewareSection: true},
				SpecURL:          "/openapi.json",
				SwaggerURL:       "/docs",
				UIHandler:        docsUI(cfg.DocsUI),
				Info: &openapi3.Info{
					Title: "contrack",
					Description: "Container tracking: subscribe once, receive every carrier's events as DCSA EVENT_DOMAIN 2.0.2. " +
						"Client libraries for Go, TypeScript and Python, generated from this document, are in the repository's sdk/ folder " +
						"(sdk/go, sdk/typescript, sdk/python), each with a README and a quick start.",
					Version: cfg.Version,
				},
			}),
		),
		fuego.WithSecurity(openapi3.SecuritySchemes{
			"api_key": &openapi3.SecuritySchemeRef{Value: openapi3.NewSecurityScheme().
				WithType("apiKey").WithIn("header").WithName("x-api-key")},
		}),
		fuego.WithRouteOptions(
			fuego.OptionSecurity(openapi3.SecurityRequirement{"api_key": []string{}}),
			// Every error is {"message": ...} (fuego's defaults say RFC 9457 for 400 and 500).
			fuego.OptionAddResponse(http.StatusBadRequest, "Invalid request", fuego.Response{Type: Body{}}),
			fuego.OptionAddResponse(http.StatusForbidden, "Missing, unknown or revoked x-api-key", fuego.Response{Type: Body{}}),
			fuego.OptionAddResponse(http.StatusInternalServerError, "Internal Server Error", fuego.Response{Type: Body{}}),
			fuego.OptionAddResponse(http.StatusTooManyRequests, "Over the usage plan's rate", fuego.Response{Type: Body{}}),
		),
	)
	if cfg.Health == nil {
		cfg.Health = NewHealth(cfg.Checks, 0, cfg.Log)
	}
	s := &Server{cfg: cfg, Fuego: f, operator: map[string]http.Handler{}, held: make(chan struct{}, MaxTarpitted)}
	if cfg.Metrics != nil {
		s.requests = newRequestMetrics(cfg.Metrics)
	}
	f.Mux.HandleFunc("GET /healthz", cfg.Health.ServeHealthz)
	f.Mux.HandleFunc("GET /readyz", cfg.Health.ServeReadyz)
	return s
}

// Health is the server's health cache (for SetReady).
func (s *Server) Health() *Health { return s.cfg.Health }

// HandleOperator registers an operator route (GET path): on this server it
// needs "Authorization: Bearer <OperatorToken>" instead of an x-api-key and
// is refused (403) when no token is configured; AdminHandler serves it
// without a token.
func (s *Server) HandleOperator(path string, h http.Handler) {
	s.operator[path] = h
	s.Fuego.Mux.Handle("GET "+path, h)
}

// AdminHandler serves /healthz, /readyz and the operator routes without a
// token, for a listener reachable only by operators (loopback by default).
func (s *Server) AdminHandler() http.Handler {
	return NewAdminHandler(s.cfg.Health, s.cfg.Log, s.operator)
}

// NewAdminHandler serves /healthz, /readyz and routes (GET path → handler)
// without any credential: bind it to loopback or an operator-only network.
func NewAdminHandler(health *Health, log *slog.Logger, routes map[string]http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", health.ServeHealthz)
	mux.HandleFunc("GET /readyz", health.ServeReadyz)
	for path, h := range routes {
		mux.Handle("GET "+path, h)
	}
	mux.Handle("/", unrouted(mux, log))
	s := &Server{cfg: Config{Log: log}}
	return s.recover(mux)
}

// operatorAllowed checks the bearer token in constant time.
func (s *Server) operatorAllowed(r *http.Request) bool {
	return operatorTokenOK(r, s.cfg.OperatorToken)
}

// operatorTokenOK reports whether r carries "Authorization: Bearer <token>",
// compared in constant time; no request passes when token is "".
func operatorTokenOK(r *http.Request, token string) bool {
	if token == "" {
		return false
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(tok), []byte(token)) == 1
}

// RequireOperatorToken serves h only to requests carrying
// "Authorization: Bearer <token>"; any other request, and every request when
// token is "", is 403 {"message":"Forbidden"}. For operator routes on a
// listener that other machines may reach (the admin listener's profiles).
func RequireOperatorToken(token string, log *slog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !operatorTokenOK(r, token) {
			WriteError(w, r, log, &Error{Status: http.StatusForbidden, Message: MsgForbidden})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// docsUI is cfg.DocsUI, or a page that only links the spec.
func docsUI(ui func(string) http.Handler) func(string) http.Handler {
	if ui != nil {
		return ui
	}
	return func(specURL string) http.Handler {
		page := `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API</title></head>` +
			`<body><p>The API description: <a href="` + html.EscapeString(specURL) + `">` + html.EscapeString(specURL) + `</a></p></body></html>`
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, page) // a client gone away is not our error
		})
	}
}

// statusOf reads a status set by a handler through fuego's context (fuego
// sets it on the writer before serialising); 200 by default.
func statusOf(w http.ResponseWriter) int {
	if sw, ok := w.(*fuegoWriter); ok && sw.status != 0 {
		return sw.status
	}
	return http.StatusOK
}

// Handler returns the full handler chain. Call it after every route is registered.
func (s *Server) Handler() http.Handler {
	f := s.Fuego
	f.OutputOpenAPISpec()
	f.RegisterOpenAPIRoutes(f)
	// After the spec's own route, whose (hidden) registration adds fuego's
	// default schemas; the document is served from this value.
	tidyOpenAPI(f.OpenAPI.Description())
	f.Mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs/", http.StatusMovedPermanently)
	})
	f.Mux.Handle("/", unrouted(f.Mux, s.cfg.Log))
	var h http.Handler = f.Mux
	h = s.limitBody(h)
	h = s.checkInput(h)
	h = s.rateLimit(h)
	h = s.authenticate(h)
	h = s.recover(h)
	h = requestID(h)
	if s.requests != nil {
		h = s.requests.wrap(h)
	}
	return h
}

// unrouted is the catch-all "/" route of mux: 405 {"message":"Method Not
// Allowed"} with Allow when the path has routes for other methods, else 404
// {"message":"Not Found"}. ServeMux answers 405 itself only when no pattern
// matches, and the catch-all always does.
func unrouted(mux *http.ServeMux, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allow := allowedMethods(mux, r); len(allow) > 0 {
			WriteError(w, r, log, &Error{Status: http.StatusMethodNotAllowed, Message: MsgNotAllowed,
				Header: http.Header{"Allow": {strings.Join(allow, ", ")}}})
			return
		}
		WriteError(w, r, log, &Error{Status: http.StatusNotFound, Message: MsgNotFound})
	})
}

// routedMethods are the methods the API's routes use (a GET route answers
// HEAD too).
var routedMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowedMethods lists the methods for which mux routes r's path to a
// pattern other than the catch-all.
func allowedMethods(mux *http.ServeMux, r *http.Request) []string {
	var allow []string
	for _, m := range routedMethods {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != "/" {
			allow = append(allow, m)
		}
	}
	return allow
}

// requestID echoes the caller's X-Request-ID (up to 128 bytes) on the
// response, or gives the request a new one, for correlating a call with
// support.
func requestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		if id == "" || len(id) > 128 {
			id = uuid.NewString()
		}
		w.Header()["X-Request-Id"] = []string{id}
		next.ServeHTTP(w, r)
	})
}

// Serve listens on cfg.Addr until ctx ends, then shuts down gracefully:
// in-flight requests are finished (up to 15 s).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.http = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(ln) }()
	s.cfg.Log.Info("http server listening", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("http: serve: %w", err)
	case <-ctx.Done():
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.http.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("http: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http: serve: %w", err)
	}
	return nil
}

func (s *Server) public(r *http.Request) bool {
	path := r.URL.Path
	for _, p := range s.cfg.Public {
		if method, mpath, ok := strings.Cut(p, " "); ok {
			if r.Method == method && path == mpath {
				return true
			}
			continue
		}
		if path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)) {
			return true
		}
	}
	return false
}

// authenticate answers 403 {"message":"Forbidden"} for a missing, unknown or
// revoked key before anything else runs. Operator routes take the operator
// token instead. A look-up the authenticator cannot answer from memory is
// first charged to the client address (PreAuth), so a flood of made-up keys
// reaches the store at a bounded rate.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.public(r) {
			next.ServeHTTP(w, r)
			return
		}
		if _, ok := s.operator[r.URL.Path]; ok && r.Method == http.MethodGet {
			if !s.operatorAllowed(r) {
				WriteError(w, r, s.cfg.Log, &Error{Status: http.StatusForbidden, Message: MsgForbidden})
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		plaintext := r.Header.Get("x-api-key")
		var (
			k   auth.Key
			err error
			hit bool
		)
		m, memory := s.cfg.Auth.(MemoryAuthenticator)
		if memory {
			k, hit, err = m.Cached(plaintext)
		}
		switch {
		case !hit:
			// A miss is charged to PreAuth inside the look-up's flight, so
			// concurrent misses of one key cost one token and one query.
			k, err = s.lookUp(r, plaintext)
			var refused *preAuthRefusal
			if errors.As(err, &refused) {
				tooMany(w, r, s.cfg.Log, refused.wait)
				return
			}
			if errors.Is(err, errClientGone) {
				tooMany(w, r, s.cfg.Log, 0) // as when a held request's client leaves
				return
			}
		case err != nil && s.cfg.PreAuthRefusals != nil:
			// Refusals from memory protect the CPU; a known key is free.
			if wait, ok := s.cfg.PreAuthRefusals.Allow(s.clientAddr(r), MaxPreAuthWait); !ok || !s.hold(r.Context(), wait) {
				tooMany(w, r, s.cfg.Log, wait)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, auth.ErrUnknownKey) {
				WriteError(w, r, s.cfg.Log, err)
				return
			}
			WriteError(w, r, s.cfg.Log, &Error{Status: http.StatusForbidden, Message: MsgForbidden})
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithKey(r.Context(), k)))
	})
}

func (s *Server) rateLimit(next http.Handler) http.Handler {
	if s.cfg.Limiter == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k, ok := auth.FromContext(r.Context()); ok {
			d := s.cfg.Limiter.Allow(r.Context(), k)
			d.setHeaders(w.Header())
			if !d.OK {
				tooMany(w, r, s.cfg.Log, d.Wait)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// limitBody answers 413 at once for a declared length over the cap and caps
// what handlers can read otherwise.
func (s *Server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			WriteError(w, r, s.cfg.Log, &Error{Status: http.StatusRequestEntityTooLarge, Message: MsgTooLarge})
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		}
		next.ServeHTTP(&fuegoWriter{ResponseWriter: w}, r)
	})
}

func (s *Server) recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.cfg.Log.Error("panic in handler", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				WriteError(w, r, s.cfg.Log, &Error{Status: http.StatusInternalServerError, Message: MsgInternal})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// MaxTarpitted bounds the requests held at once by the pre-authentication
// limit (see hold).
const MaxTarpitted = 1024

// MaxPreAuthWait is the longest a request over its address's
// pre-authentication rate is held before it is answered 429 instead.
const MaxPreAuthWait = time.Second

// hold delays a request until its address's next pre-authentication token,
// then lets it through to the normal answer (403 for an unknown key): a
// client going a little fast is slowed, not refused, and a flooder waiting
// for its answers is paced at the limit. False when MaxTarpitted requests
// are already held or the client left.
func (s *Server) hold(ctx context.Context, wait time.Duration) bool {
	if wait <= 0 {
		return true
	}
	select {
	case s.held <- struct{}{}:
	default:
		return false
	}
	defer func() { <-s.held }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// tooMany answers 429 with Retry-After in whole seconds (at least 1).
func tooMany(w http.ResponseWriter, r *http.Request, log *slog.Logger, wait time.Duration) {
	secs := int(wait.Seconds() + 0.999)
	w.Header().Set("Retry-After", fmt.Sprint(max(secs, 1)))
	WriteError(w, r, log, &Error{Status: http.StatusTooManyRequests, Message: MsgTooManyRequests})
}

// fuegoWriter is the writer fuego's handlers get. It lets a handler choose
// the status of a fuego response (see Status), and keeps fuego's own
// headers off every answer: X-Powered-By names the framework (what an
// audit flags as disclosure), Server-Timing its timings, and the Trailer
// declaring them made every answer chunked, without a Content-Length.
type fuegoWriter struct {
	http.ResponseWriter
	status int
	sent   bool // the headers are written
}

// fuegoHeaders are the headers fuego sets on every answer.
var fuegoHeaders = []string{"X-Powered-By", "Server-Timing", "Trailer"}

// dropFuegoHeaders runs once, before the headers are written: what fuego
// sets after that is not sent, the Trailer declaration being gone.
func (w *fuegoWriter) dropFuegoHeaders() {
	if w.sent {
		return
	}
	w.sent = true
	h := w.Header()
	for _, k := range fuegoHeaders {
		delete(h, k)
	}
}

func (w *fuegoWriter) WriteHeader(code int) {
	w.dropFuegoHeaders()
	w.ResponseWriter.WriteHeader(code)
}

func (w *fuegoWriter) Write(b []byte) (int, error) {
	w.dropFuegoHeaders()
	return w.ResponseWriter.Write(b)
}

// FlushError is what http.ResponseController calls to flush: the headers
// go out with it.
func (w *fuegoWriter) FlushError() error {
	w.dropFuegoHeaders()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *fuegoWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Status sets the status code fuego will send with the handler's return value.
func Status(w http.ResponseWriter, code int) {
	if sw, ok := w.(*fuegoWriter); ok {
		sw.status = code
	}
}
