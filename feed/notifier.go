package feed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/contrack/contrack/platform/loop"
)

// DefaultMaxWaiters bounds the long-polls a Notifier holds at once.
const DefaultMaxWaiters = 10_000

// Notifier wakes long-polls of GET /subscriptions/events when the feed
// stage, in this or any other process, commits events for their account:
// one Postgres connection per API process LISTENs on Channel and fans each
// notification out to the waiters of that account, in memory. While the
// connection is down (it is re-made with backoff) every waiter is woken
// when it drops and again when it is back, so none sleeps through events
// it missed the notification of.
type Notifier struct {
	connect func(ctx context.Context) (*pgx.Conn, error)
	log     *slog.Logger
	max     int

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{}
	count   int
	stopped bool

	loops *loop.Supervisor // Supervise
}

// Supervise runs the listener as the loop "feed-notifier" of loops (the
// role's): a lost connection is counted, a run of them turns /readyz red.
// Call before Run.
func (n *Notifier) Supervise(loops *loop.Supervisor) { n.loops = loops }

// NewNotifier listens through its own connection, made with pool's
// settings; maxWaiters ≤ 0 means DefaultMaxWaiters.
func NewNotifier(pool *pgxpool.Pool, log *slog.Logger, maxWaiters int) *Notifier {
	if maxWaiters <= 0 {
		maxWaiters = DefaultMaxWaiters
	}
	if log == nil {
		log = slog.Default()
	}
	cc := pool.Config().ConnConfig
	return &Notifier{
		connect: func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cc.Copy()) },
		log:     log.With("component", "feed-notifier"),
		max:     maxWaiters,
		waiters: map[string]map[chan struct{}]struct{}{},
	}
}

// Subscribe registers a waiter for accountID. wake receives a value after
// events of the account commit (and on reconnection), and is closed when
// Run has ended (the process is stopping: answer now); cancel must be
// called when done. ok is false when the bound of waiters is reached (wake
// is then nil and cancel a no-op): the caller refuses the long-poll rather
// than polling the table (GET /subscriptions/events answers 503).
func (n *Notifier) Subscribe(accountID string) (wake <-chan struct{}, cancel func(), ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ch := make(chan struct{}, 1)
	if n.stopped {
		close(ch)
		return ch, func() {}, true
	}
	if n.count >= n.max {
		return nil, func() {}, false
	}
	set := n.waiters[accountID]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		n.waiters[accountID] = set
	}
	set[ch] = struct{}{}
	n.count++
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			n.mu.Lock()
			defer n.mu.Unlock()
			if _, ok := set[ch]; !ok {
				return // released by stop
			}
			delete(set, ch)
			if len(set) == 0 {
				delete(n.waiters, accountID)
			}
			n.count--
		})
	}, true
}

func (n *Notifier) wake(accountID string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for ch := range n.waiters[accountID] {
		poke(ch)
	}
}

func (n *Notifier) wakeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, set := range n.waiters {
		for ch := range set {
			poke(ch)
		}
	}
}

func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// stop closes every waiter's channel and every later one's: long-polls
// answer at once.
func (n *Notifier) stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.stopped = true
	for _, set := range n.waiters {
		for ch := range set {
			close(ch)
		}
	}
	n.waiters = map[string]map[chan struct{}]struct{}{}
	n.count = 0
}

// Run listens until ctx ends, reconnecting after the loop's backoff (100
// ms doubling to 10 s); it returns nil then, and from then on long-polls
// answer at once. Give it a context that ends when the HTTP server starts
// shutting down, so long-polls do not hold the shutdown up.
func (n *Notifier) Run(ctx context.Context) error {
	defer n.stop()
	listener := n.loops.Loop("feed-notifier", n.log)
	return listener.Run(ctx, 0, func(ctx context.Context) error {
		err := n.listen(ctx, listener)
		if ctx.Err() == nil {
			n.wakeAll() // whatever was missed meanwhile is read by the woken
			if err == nil {
				err = errors.New("feed: listener stopped")
			}
		}
		return err
	})
}

// listen holds one LISTEN connection until it fails or ctx ends; once
// listening it reports the loop's success.
func (n *Notifier) listen(ctx context.Context, listener *loop.Loop) error {
	conn, err := n.connect(ctx)
	if err != nil {
		return fmt.Errorf("feed: connect listener: %w", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn.Close(cctx)
		cancel()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return fmt.Errorf("feed: listen: %w", err)
	}
	listener.Succeeded()
	n.wakeAll() // events committed before LISTEN took effect
	for {
		nt, err := conn.WaitForNotification(ctx)
		if err != nil {
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("feed: wait for notification: %w", err)
		}
		n.wake(nt.Payload)
	}
}
