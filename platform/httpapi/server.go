package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/go-fuego/fuego"

	"github.com/contrack/contrack/platform/auth"
)

// Authenticator resolves an x-api-key to its key and account.
type Authenticator interface {
	Authenticate(ctx context.Context, plaintext string) (auth.Key, error)
}

var _ Authenticator = (*auth.Store)(nil)

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
	// Public lists paths served without a key: exact paths, prefixes ending
	// in "/", or "METHOD /path" for one method only.
	Public []string
}

// Server is the HTTP intake: routes are registered on Fuego (for the
// generated OpenAPI), and the handler chain puts the key check first.
type Server struct {
	cfg   Config
	Fuego *fuego.Server
	http  *http.Server
}

// New returns a server with /healthz, /openapi.json and /docs registered.
func New(cfg Config) *Server {
	f := fuego.NewServer(
		fuego.WithoutStartupMessages(),
		fuego.WithoutLogger(),
		fuego.WithDisallowUnknownFields(false),
		fuego.WithSerializer(func(w http.ResponseWriter, _ *http.Request, v any) error {
			WriteJSON(w, statusOf(w), v)
			return nil
		}),
		fuego.WithErrorSerializer(func(w http.ResponseWriter, r *http.Request, err error) {
			WriteError(w, r, cfg.Log, err)
		}),
		fuego.WithEngineOptions(
			fuego.WithErrorHandler(func(_ context.Context, err error) error { return err }),
			fuego.WithOpenAPIConfig(fuego.OpenAPIConfig{
				DisableLocalSave: true,
				DisableMessages:  true,
				SpecURL:          "/openapi.json",
				SwaggerURL:       "/docs",
				UIHandler:        fuego.DefaultOpenAPIHandler,
				Info: &openapi3.Info{
					Title:       "contrack",
					Description: "Container tracking: subscribe once, receive every carrier's events as DCSA EVENT_DOMAIN 2.0.2.",
					Version:     cfg.Version,
				},
			}),
		),
		fuego.WithSecurity(openapi3.SecuritySchemes{
			"api_key": &openapi3.SecuritySchemeRef{Value: openapi3.NewSecurityScheme().
				WithType("apiKey").WithIn("header").WithName("x-api-key")},
		}),
		fuego.WithRouteOptions(
			fuego.OptionSecurity(openapi3.SecurityRequirement{"api_key": []string{}}),
			fuego.OptionAddResponse(http.StatusForbidden, "Missing, unknown or revoked x-api-key", fuego.Response{Type: Body{}}),
			fuego.OptionAddResponse(http.StatusTooManyRequests, "Over the usage plan's rate", fuego.Response{Type: Body{}}),
		),
	)
	s := &Server{cfg: cfg, Fuego: f}
	f.Mux.HandleFunc("GET /healthz", s.health)
	return s
}

// statusOf reads a status set by a handler through fuego's context (fuego
// sets it on the writer before serialising); 200 by default.
func statusOf(w http.ResponseWriter) int {
	if sw, ok := w.(*statusWriter); ok && sw.status != 0 {
		return sw.status
	}
	return http.StatusOK
}

// Handler returns the full handler chain. Call it after every route is registered.
func (s *Server) Handler() http.Handler {
	f := s.Fuego
	f.OutputOpenAPISpec()
	f.RegisterOpenAPIRoutes(f)
	f.Mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/docs/", http.StatusMovedPermanently)
	})
	f.Mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, s.cfg.Log, &Error{Status: http.StatusNotFound, Message: MsgNotFound})
	})
	var h http.Handler = f.Mux
	h = s.limitBody(h)
	h = s.rateLimit(h)
	h = s.authenticate(h)
	h = s.recover(h)
	return h
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
// revoked key before anything else runs.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.public(r) {
			next.ServeHTTP(w, r)
			return
		}
		k, err := s.cfg.Auth.Authenticate(r.Context(), r.Header.Get("x-api-key"))
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
			if wait, ok := s.cfg.Limiter.Allow(k); !ok {
				secs := int(wait.Seconds() + 0.999)
				w.Header().Set("Retry-After", fmt.Sprint(max(secs, 1)))
				WriteError(w, r, s.cfg.Log, &Error{Status: http.StatusTooManyRequests, Message: MsgTooManyRequests})
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
		next.ServeHTTP(&statusWriter{ResponseWriter: w}, r)
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

// health answers 200 when every dependency answers, else 503 naming those
// that do not.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(s.cfg.Checks))
	for _, c := range s.cfg.Checks {
		go func() { results <- result{c.Name, c.Ping(ctx)} }()
	}
	status := map[string]string{}
	var down []string
	for range s.cfg.Checks {
		res := <-results
		if res.err != nil {
			status[res.name] = "down"
			down = append(down, res.name)
			s.cfg.Log.Warn("health check failed", "dependency", res.name, "err", res.err)
		} else {
			status[res.name] = "ok"
		}
	}
	if len(down) > 0 {
		sort.Strings(down)
		WriteJSON(w, http.StatusServiceUnavailable, map[string]any{
			"message": "Unavailable: " + strings.Join(down, ", ") + " not answering",
			"checks":  status,
		})
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "checks": status})
}

// statusWriter lets a handler choose the status of a fuego response (see Status).
type statusWriter struct {
	http.ResponseWriter
	status int
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Status sets the status code fuego will send with the handler's return value.
func Status(w http.ResponseWriter, code int) {
	if sw, ok := w.(*statusWriter); ok {
		sw.status = code
	}
}
