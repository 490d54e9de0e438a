package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/contrack/contrack/platform/testenv"
	"github.com/contrack/contrack/schemas"
	"github.com/contrack/contrack/schemas/deliveries"
)

// storeWithSubscription is a store on a fresh database with one account,
// tracking and OPEN subscription; it returns the account and subscription ids.
func storeWithSubscription(t *testing.T) (*store, string, string) {
	db := testenv.Postgres(t)
	acct, trk, sub := uuid.NewString(), uuid.NewString(), uuid.NewString()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, 'acme', 'sandbox', 'acme')`, []any{acct}},
		{`INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			VALUES ($1, $2, 'sandbox', 'MAEU', 'container', 'MSKU1234565', 'CONNECTED')`, []any{trk, acct}},
		{`INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
			VALUES ($1, $2, 'ref', $3, 'MAEU', 'MSKU1234565', 'OPEN', now(), now())`, []any{sub, acct, trk}},
	} {
		if _, err := db.Pool.Exec(context.Background(), q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
	return &store{pool: db.Pool, cfg: Config{MaxBatchEvents: 2}.WithDefaults()}, acct, sub
}

// Events left queued with no open delivery (which enqueue and record never
// leave behind) are batched by the sweep, in order, MaxBatchEvents at a time.
func TestSweepOpensStrandedEvents(t *testing.T) {
	st, _, sub := storeWithSubscription(t)
	ctx := context.Background()
	for _, ev := range []string{"a", "b", "c"} {
		if _, err := st.pool.Exec(ctx, queueOne, sub, ev); err != nil {
			t.Fatal(err)
		}
	}
	opened, err := st.sweep(ctx, time.Now())
	if err != nil || !opened {
		t.Fatalf("sweep: %v %v", opened, err)
	}
	var got []string
	rows, _ := st.pool.Query(ctx, `SELECT q.event_id FROM delivery_queue_events q
		JOIN deliveries d ON d.subscription_id = q.subscription_id AND q.id BETWEEN d.queue_from AND d.queue_to
		WHERE d.status = 'PENDING' AND d.event_count = 2 ORDER BY q.id`)
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	rows.Close()
	if len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("opened delivery holds %v, want [a b]", got)
	}
	// The open delivery blocks the next batch: sweeping again opens nothing.
	if opened, err := st.sweep(ctx, time.Now()); err != nil || opened {
		t.Fatalf("second sweep: %v %v", opened, err)
	}
}

// Enqueue opens a subscription's delivery with what waits above its cursor
// (rows stranded earlier, then the new event), MaxBatchEvents of it.
func TestEnqueueBatchesWhatWaits(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 1)
	var sub string
	if err := st.pool.QueryRow(ctx, `SELECT id::text FROM subscriptions WHERE tracking_id = $1`, trks[0][0]).Scan(&sub); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"a", "b"} {
		mustExec(t, st, queueOne, sub, ev)
	}
	g := leaseGrant{Max: 10, PerAccount: 10, Token: uuid.New(), Until: time.Now().Add(time.Minute)}
	leased, _, err := st.enqueue(ctx, []queued{event(trks[0][0], "c")}, g, time.Now())
	if err != nil || len(leased) != 1 {
		t.Fatalf("enqueue leased %d, %v; want 1", len(leased), err)
	}
	if c := leased[0]; c.EventCount != 2 {
		t.Fatalf("the delivery holds %d events (%s), want MaxBatchEvents, 2", c.EventCount, c.Body)
	}
}

// Closed deliveries past their retention go, with their queue rows; open
// ones and unpublished dead letters stay.
func TestPrune(t *testing.T) {
	st, acct, sub := storeWithSubscription(t)
	ctx := context.Background()
	now := time.Now()
	day := 24 * time.Hour
	cases := []struct {
		status    string
		age       time.Duration
		published bool
		kept      bool
	}{
		{deliveries.StatusDelivered, 40 * day, false, false},
		{deliveries.StatusDelivered, day, false, true},
		{deliveries.StatusDead, 100 * day, true, false},
		{deliveries.StatusDead, 100 * day, false, true}, // not yet on the dead-letter topic
		{deliveries.StatusFailed, 100 * day, false, true},
	}
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = uuid.NewString()
		var pub *time.Time
		if c.published {
			pub = &now
		}
		// Each delivery with two queue rows, its range.
		if _, err := st.pool.Exec(ctx, `WITH q AS (
				INSERT INTO delivery_queue (subscription_id, event_count, bytes, enqueued_at, event_ids, content_hashes, emitted_at, events, traceparents)
				SELECT $3, 1, 2, now(), ARRAY[$1::text || n], '{h}', ARRAY[now()], '{"{}"}', '{""}' FROM generate_series(1, 2) AS n RETURNING id)
			INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, queue_from, queue_to,
				next_attempt_at, created_at, updated_at, dlq_published_at, replayed)
			SELECT $1::text::uuid, $2, $3, $4, 2, min(q.id), max(q.id), $5, $5, $5, $6, $7 FROM q`,
			ids[i], acct, sub, c.status, now.Add(-c.age), pub, c.status == deliveries.StatusFailed); err != nil {
			t.Fatal(err)
		}
	}
	n, err := st.prune(ctx, now)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	for i, c := range cases {
		var d, q int
		if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM deliveries WHERE id = $1`, ids[i]).Scan(&d); err != nil {
			t.Fatal(err)
		}
		if err := st.pool.QueryRow(ctx, `SELECT count(*) FROM delivery_queue_events WHERE starts_with(event_id, $1)`, ids[i]).Scan(&q); err != nil {
			t.Fatal(err)
		}
		if (d == 1) != c.kept || (q == 2) != c.kept || (q != 0 && q != 2) {
			t.Errorf("%s aged %s: delivery %d, queue rows %d; kept %v", c.status, c.age, d, q, c.kept)
		}
	}
}

// hookedAccounts makes accounts with an activated webhook on host[i] and
// subs OPEN subscriptions each; it returns each account's tracking ids.
func hookedAccounts(t *testing.T, st *store, hosts []string, subs int) (accts []string, trackings [][]uuid.UUID) {
	for i, host := range hosts {
		acct := uuid.NewString()
		accts = append(accts, acct)
		mustExec(t, st, `INSERT INTO accounts (id, client_slug, env, display_name) VALUES ($1, $2, 'sandbox', 'x')`, acct, "acct-"+acct[:8])
		mustExec(t, st, `INSERT INTO webhooks (account_id, target_url, activated, secret_enc) VALUES ($1, $2, true, '\x00')`,
			acct, "https://"+host+"/hook")
		var trks []uuid.UUID
		for j := range subs {
			trk := uuid.New()
			trks = append(trks, trk)
			ident := "T" + strconv.Itoa(i) + "-" + strconv.Itoa(j)
			mustExec(t, st, `INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
				VALUES ($1, $2, 'sandbox', 'MAEU', 'container', $3, 'CONNECTED')`, trk, acct, ident)
			mustExec(t, st, `INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
				VALUES (gen_random_uuid(), $1, $2, $3, 'MAEU', $2, 'OPEN', now(), now())`, acct, ident, trk)
		}
		trackings = append(trackings, trks)
	}
	return accts, trackings
}

func mustExec(t *testing.T, st *store, sql string, args ...any) {
	t.Helper()
	if _, err := st.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func event(tracking uuid.UUID, id string) queued {
	return queued{tracking: tracking, ev: schemas.EventRecord{EventID: id, ContentHash: "h", Event: []byte(`{"eventID":"` + id + `"}`)}}
}

// Deliveries opened by enqueue are leased to the caller at birth within
// the grant: at most Max in all and PerAccount per account, none for the
// skipped accounts; the leased ones come back with their body and the
// rest are left for claims. Queuing the same events again opens nothing.
func TestEnqueueLeasesWithinGrant(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	accts, trks := hookedAccounts(t, st, []string{"a.example", "b.example", "c.example"}, 3)
	var evs []queued
	for i := range trks {
		for j, trk := range trks[i] {
			evs = append(evs, event(trk, "ev-"+strconv.Itoa(i)+strconv.Itoa(j)))
		}
	}
	g := leaseGrant{Max: 3, PerAccount: 2, Skip: []uuid.UUID{uuid.MustParse(accts[2])}, Token: uuid.New(), Until: time.Now().Add(time.Minute)}
	leased, unleased, err := st.enqueue(ctx, evs, g, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(leased) != 3 || len(unleased) != 6 {
		t.Fatalf("leased %d, unleased %d; want 3 and 6", len(leased), len(unleased))
	}
	perAccount := map[string]int{}
	for _, c := range leased {
		perAccount[c.AccountID]++
		if c.AccountID == accts[2] {
			t.Errorf("delivery of skipped account %s leased", c.AccountID)
		}
		var p struct {
			References deliveries.References `json:"references"`
			Events     []json.RawMessage     `json:"events"`
		}
		if err := json.Unmarshal(c.Body, &p); err != nil || len(p.Events) != 1 || p.References.ScacCode != "MAEU" {
			t.Errorf("leased body %s: %v", c.Body, err)
		}
		var token uuid.UUID
		if err := st.pool.QueryRow(ctx, `SELECT lease_token FROM deliveries WHERE id = $1`, c.ID).Scan(&token); err != nil {
			t.Fatal(err)
		}
		if token != g.Token || c.Token != g.Token || c.Endpoint == "" {
			t.Errorf("delivery %s: lease token %s, claimed %+v", c.ID, token, c)
		}
	}
	for acct, n := range perAccount {
		if n > 2 {
			t.Errorf("account %s got %d leases, want at most 2", acct, n)
		}
	}
	// The unleased ones are due and claimable; the leased ones are not.
	cs, err := st.claim(ctx, 100, claimLimits{Default: 8}, time.Now())
	if err != nil || len(cs) != 6 {
		t.Fatalf("claimed %d (%v), want the 6 unleased", len(cs), err)
	}
	// Redelivered events queue nothing and open nothing.
	leased, unleased, err = st.enqueue(ctx, evs, g, time.Now())
	if err != nil || len(leased)+len(unleased) != 0 {
		t.Fatalf("again: leased %d, unleased %d, %v", len(leased), len(unleased), err)
	}
	// A zero grant leases nothing.
	more := []queued{event(trks[0][0], "later")}
	if leased, _, err := st.enqueue(ctx, more, leaseGrant{}, time.Now()); err != nil || len(leased) != 0 {
		t.Fatalf("zero grant leased %d, %v", len(leased), err)
	}
}

// The delivery that record opens behind an acknowledged one is leased at
// birth under record's grant, with the events that queued meanwhile in its
// body, so it is sent without a claim; under a zero grant it is left to be
// claimed.
func TestRecordLeasesTheNextDeliveryAtBirth(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	st.cfg.MaxBatchEvents = 100
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 2)
	grant := func() leaseGrant {
		return leaseGrant{Max: 10, PerAccount: 10, Token: uuid.New(), Until: time.Now().Add(time.Minute)}
	}
	first, _, err := st.enqueue(ctx, []queued{event(trks[0][0], "a"), event(trks[0][1], "x")}, grant(), time.Now())
	if err != nil || len(first) != 2 {
		t.Fatalf("enqueue leased %d, %v; want 2", len(first), err)
	}
	if strings.Contains(string(first[0].Body), `"x"`) {
		first[0], first[1] = first[1], first[0] // a's first
	}
	// Queued behind the open deliveries.
	for _, q := range []queued{event(trks[0][0], "b"), event(trks[0][0], "c"), event(trks[0][1], "y")} {
		if leased, unleased, err := st.enqueue(ctx, []queued{q}, grant(), time.Now()); err != nil || len(leased)+len(unleased) != 0 {
			t.Fatalf("enqueue behind an open delivery opened %d, %d (%v)", len(leased), len(unleased), err)
		}
	}
	done := func(c *claimed) outcome {
		return outcome{c: c, Status: deliveries.StatusDelivered, HTTPCode: 200, At: time.Now(), NextAt: time.Now()}
	}
	g := grant()
	out, _, err := st.record(ctx, []outcome{done(&first[0])}, g, time.Now())
	if err != nil || len(out.leased) != 1 || len(out.unleased) != 0 {
		t.Fatalf("record opened leased %+v, unleased %v (%v); want one leased", out.leased, out.unleased, err)
	}
	next := out.leased[0]
	var p struct {
		Events []struct {
			ID string `json:"eventID"`
		} `json:"events"`
	}
	if err := json.Unmarshal(next.Body, &p); err != nil || len(p.Events) != 2 || p.Events[0].ID != "b" || p.Events[1].ID != "c" {
		t.Fatalf("next delivery's body %s (%v), want events b and c", next.Body, err)
	}
	var token uuid.UUID
	if err := st.pool.QueryRow(ctx, `SELECT lease_token FROM deliveries WHERE id = $1`, next.ID).Scan(&token); err != nil ||
		token != g.Token || next.Token != g.Token || next.Endpoint == "" {
		t.Fatalf("next delivery's lease %s (%v), claimed %+v; want the grant's", token, err, next)
	}
	if cs, err := st.claim(ctx, 100, claimLimits{Default: 8}, time.Now()); err != nil || len(cs) != 0 {
		t.Fatalf("claimed %d (%v); the leased delivery is not claimable", len(cs), err)
	}
	// Under a zero grant the next delivery is opened for claims.
	out, _, err = st.record(ctx, []outcome{done(&first[1])}, leaseGrant{}, time.Now())
	if err != nil || len(out.leased) != 0 || len(out.unleased) != 1 {
		t.Fatalf("zero grant: leased %d, unleased %d (%v); want one unleased", len(out.leased), len(out.unleased), err)
	}
	if cs, err := st.claim(ctx, 100, claimLimits{Default: 8}, time.Now()); err != nil || len(cs) != 1 {
		t.Fatalf("claimed %d (%v), want the unleased one", len(cs), err)
	}
}

// A claim takes the oldest due deliveries of each endpoint with room: a
// large backlog of a full endpoint, older than everything else, never
// hides another endpoint's deliveries, and per-endpoint room is respected.
// Endpoints are per account: the two accounts' webhooks share a host, and
// the first one being full takes nothing from the second.
func TestClaimPassesOverFullEndpoints(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	accts, trks := hookedAccounts(t, st, []string{"shared.example", "shared.example"}, 40)
	busyKey := endpointKey(accts[0], "https://shared.example/hook")
	old := time.Now().Add(-time.Hour)
	var busy, other []queued
	for j := range 40 {
		busy = append(busy, event(trks[0][j], "b"+strconv.Itoa(j)))
		other = append(other, event(trks[1][j], "o"+strconv.Itoa(j)))
	}
	if _, _, err := st.enqueue(ctx, busy, leaseGrant{}, old); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.enqueue(ctx, other, leaseGrant{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	cs, err := st.claim(ctx, 10, claimLimits{Full: []string{busyKey}, Default: 8}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 8 {
		t.Fatalf("claimed %d, want 8 (the other account's room)", len(cs))
	}
	for _, c := range cs {
		if c.AccountID != accts[1] || c.Endpoint != endpointKey(accts[1], "https://shared.example/hook") {
			t.Fatalf("claimed a delivery of %s (%s), whose endpoint is full", c.AccountID, c.Endpoint)
		}
	}
	// With room on both, the older backlog comes first, within each endpoint's room.
	cs, err = st.claim(ctx, 10, claimLimits{Keys: []string{busyKey}, Free: []int32{3}, Default: 8}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, c := range cs {
		n[c.AccountID]++
	}
	if n[accts[0]] != 3 || n[accts[1]] != 7 {
		t.Fatalf("claimed %v, want the busy account 3 and the other 7", n)
	}
}

// Queuing an event reads its own subscription's rows, not every open
// subscription, open delivery or queued event, on a database whose tables
// have no statistics yet (a new deployment's first minutes, when plans
// cached per connection are made) and after they are analysed. The tables
// are small (200 subscriptions, under 10 pages): there a scan costs the
// planner no more than a probe, and ties between indexes are broken by
// their order, not by what they narrow.
func TestEnqueueReadsOnlyItsSubscription(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 2)
	mustExec(t, st, `
		WITH a AS (SELECT account_id FROM webhooks LIMIT 1),
		t AS (INSERT INTO trackings (id, account_id, env, scac, identifier_kind, identifier, connection_status)
			SELECT gen_random_uuid(), a.account_id, 'sandbox', 'MAEU', 'container', 'C' || n, 'CONNECTED'
			FROM a, generate_series(1, 200) AS n RETURNING id, account_id, identifier)
		INSERT INTO subscriptions (id, account_id, reference, tracking_id, scac, container_number, status, created_at, expires_at)
		SELECT gen_random_uuid(), account_id, identifier, id, 'MAEU', identifier, 'OPEN', now(), now() + interval '1 day' FROM t`)
	// Half of them have an open delivery and the other half queued events.
	mustExec(t, st, `
		INSERT INTO deliveries (id, account_id, subscription_id, status, event_count, next_attempt_at, created_at, updated_at)
		SELECT gen_random_uuid(), account_id, id, 'PENDING', 1, now(), now(), now()
		FROM subscriptions WHERE reference LIKE 'C%' AND right(reference, 1) IN ('0', '2', '4', '6', '8')`)
	mustExec(t, st, `
		INSERT INTO delivery_queue (subscription_id, event_count, bytes, enqueued_at, event_ids, content_hashes, emitted_at, events, traceparents)
		SELECT id, 1, 2, now(), '{queued}', '{h}', ARRAY[now()], '{"{}"}', '{""}' FROM subscriptions WHERE reference LIKE 'C%' AND right(reference, 1) IN ('1', '3', '5', '7', '9')`)
	for i, when := range []string{"without statistics", "analysed"} {
		if i == 1 {
			mustExec(t, st, `ANALYZE`)
		}
		b, out := st.enqueueBatch([]queued{event(trks[0][i], "probe")}, leaseGrant{}, time.Now())
		tables := []string{"subscriptions", "deliveries", "delivery_queue"}
		b, read := testenv.RowsRead(b, tables)
		if err := st.pool.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
		if len(out.unleased) != 1 {
			t.Fatalf("%s: queued %d deliveries, want 1", when, len(out.unleased))
		}
		for _, table := range tables {
			// A handful of index entries and rows per probe; a scan reads 100 or more.
			if read[table] > 30 {
				t.Errorf("%s: queuing one event read %d rows of %s", when, read[table], table)
			}
		}
	}
}

// Deliveries leased at birth under a grant whose enqueue reported an error
// (the commit's answer lost) are held by no sender: a claim naming the
// grant's token as an orphan takes them; other claims leave them until the
// lease ends.
func TestOrphanedLeasesAreClaimable(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 2)
	g := leaseGrant{Max: 10, PerAccount: 10, Token: uuid.New(), Until: time.Now().Add(time.Minute)}
	leased, _, err := st.enqueue(ctx, []queued{event(trks[0][0], "a"), event(trks[0][1], "b")}, g, time.Now())
	if err != nil || len(leased) != 2 {
		t.Fatalf("leased %d, %v; want 2", len(leased), err)
	}
	if cs, err := st.claim(ctx, 100, claimLimits{Default: 8}, time.Now()); err != nil || len(cs) != 0 {
		t.Fatalf("claimed %d (%v) while the lease runs, want none", len(cs), err)
	}
	cs, err := st.claim(ctx, 100, claimLimits{Default: 8, Orphans: []uuid.UUID{uuid.New(), g.Token}}, time.Now())
	if err != nil || len(cs) != 2 {
		t.Fatalf("claimed %d (%v) naming the orphaned token, want 2", len(cs), err)
	}
	for _, c := range cs {
		if c.Token == g.Token {
			t.Errorf("delivery %s claimed under the orphaned token", c.ID)
		}
	}
}

// A queue transaction that committed but reported an error (its answer
// lost) leaves deliveries leased at birth that the writer never handed to
// a sender: the writer marks its grant's token an orphan, and the
// dispatcher's next claim takes them instead of waiting out the lease.
func TestLostEnqueueAnswerIsClaimedAtOnce(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	st.cfg = Config{Workers: 8, EndpointConcurrency: 8, Lease: time.Minute, InstanceTimeout: time.Minute}.WithDefaults()
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 1)
	d := &dispatcher{cfg: st.cfg, store: st, now: time.Now, accepting: true, poke: make(chan struct{}, 1),
		endpoints: map[string]*endpoint{}, byAccount: map[string]*endpoint{}}
	w := newQueueWriter(st, d, testenv.Log(t), time.Now)
	w.enqueue = func(ctx context.Context, evs []queued, g leaseGrant, now time.Time) ([]claimed, []string, error) {
		leased, _, err := st.enqueue(ctx, evs, g, now)
		if err != nil || len(leased) != 1 {
			t.Errorf("enqueue leased %d, %v; want 1", len(leased), err)
		}
		return nil, nil, errors.New("connection reset after the commit")
	}
	req := &queueReq{qs: []queued{event(trks[0][0], "lost")}, done: make(chan error, 1)}
	w.write(ctx, []*queueReq{req})
	if err := <-req.done; err == nil {
		t.Fatal("the handler saw no error")
	}
	n, lim := d.capacity()
	cs, err := st.claim(ctx, n, lim, time.Now())
	if err != nil || len(cs) != 1 {
		t.Fatalf("claimed %d (%v), want the delivery the lost answer leased", len(cs), err)
	}
}

// A claim is made for the room its endpoint had; should a delivery leased
// at birth take that room before the claimed one starts, the claimed one
// is not sent (the endpoint would get more than EndpointConcurrency
// requests at once) but released, and claimed again.
func TestClaimedBeyondTheEndpointsRoomIsReleased(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	st.cfg = Config{Workers: 8, EndpointConcurrency: 1, Lease: time.Minute, InstanceTimeout: time.Minute}.WithDefaults()
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 1)
	if _, unleased, err := st.enqueue(ctx, []queued{event(trks[0][0], "a")}, leaseGrant{}, time.Now()); err != nil || len(unleased) != 1 {
		t.Fatalf("enqueue: %d unleased, %v", len(unleased), err)
	}
	d := &dispatcher{cfg: st.cfg, store: st, now: time.Now, log: testenv.Log(t), accepting: true, poke: make(chan struct{}, 1),
		endpoints: map[string]*endpoint{}, byAccount: map[string]*endpoint{}}
	n, lim := d.capacity()
	cs, err := st.claim(ctx, n, lim, time.Now())
	if err != nil || len(cs) != 1 {
		t.Fatalf("claimed %d, %v; want 1", len(cs), err)
	}
	// Meanwhile a delivery leased at birth took the endpoint's one slot.
	d.mu.Lock()
	ep := d.endpointLocked(cs[0].Endpoint)
	ep.inflight = 1
	d.mu.Unlock()
	over := d.startClaimed(cs)
	if len(over) != 1 || ep.inflight != 1 || !ep.wantSlot {
		t.Fatalf("%d not started, %d in flight, slot wanted %v: want the claimed one held back", len(over), ep.inflight, ep.wantSlot)
	}
	d.release(ctx, over)
	if again, err := st.claim(ctx, 1, claimLimits{Default: 1}, time.Now()); err != nil || len(again) != 1 || again[0].ID != cs[0].ID {
		t.Fatalf("claimed %d after the release (%v), want the held-back one", len(again), err)
	}
}

// The queue depth counts the events waiting above the cursor of each
// subscription whose delivery is open, and the open deliveries by status.
func TestDepthCountsEventsWaitingBehindOpenDeliveries(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 2)
	depth := func() [3]int64 {
		t.Helper()
		p, f, q, err := st.depth(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return [3]int64{p, f, q}
	}
	enqueue := func(trk uuid.UUID, id string) {
		t.Helper()
		if _, _, err := st.enqueue(ctx, []queued{event(trk, id)}, leaseGrant{}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	enqueue(trks[0][0], "a")
	enqueue(trks[0][1], "b")
	if d := depth(); d != [3]int64{2, 0, 0} {
		t.Fatalf("depth %v after an event each, want 2 pending, none waiting", d)
	}
	enqueue(trks[0][0], "c")
	enqueue(trks[0][0], "d")
	enqueue(trks[0][1], "e")
	if d := depth(); d != [3]int64{2, 0, 3} {
		t.Fatalf("depth %v, want 2 pending and 3 waiting behind them", d)
	}
}

// A tracking's events queued in one transaction keep their order, and the
// repeat rule holds among them: a version equal to the one before it is
// skipped, whether that one was queued earlier or in the same batch, and a
// change back to an earlier content is queued.
func TestEnqueueQueuesATrackingsEventsInOrder(t *testing.T) {
	st, _, _ := storeWithSubscription(t)
	ctx := context.Background()
	_, trks := hookedAccounts(t, st, []string{"a.example"}, 1)
	trk := trks[0][0]
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	n := 0
	version := func(id, hash string) queued {
		n++
		q := event(trk, id)
		q.ev.ContentHash, q.ev.EmittedAt = hash, t0.Add(time.Duration(n)*time.Second)
		return q
	}
	if _, _, err := st.enqueue(ctx, []queued{version("x", "h1")}, leaseGrant{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	batch := []queued{
		version("a", "h"),
		version("x", "h1"), // equal to the version queued before: skipped
		version("b", "h"),
		version("x", "h2"), // a change
		version("x", "h2"), // equal to the one before it in the batch: skipped
		version("x", "h1"), // a change back: queued
		version("c", "h"),
	}
	if _, _, err := st.enqueue(ctx, batch, leaseGrant{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	rows, err := st.pool.Query(ctx, `SELECT q.event_id || ':' || q.content_hash FROM delivery_queue_events q
		JOIN subscriptions s ON s.id = q.subscription_id WHERE s.tracking_id = $1 ORDER BY q.id, q.pos`, trk)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"x:h1", "a:h", "b:h", "x:h2", "x:h1", "c:h"}; !slices.Equal(got, want) {
		t.Fatalf("queued %v, want %v", got, want)
	}
}

// queueOne queues event $2 for subscription $1 as a row of its own, as
// what an earlier process left queued.
const queueOne = `INSERT INTO delivery_queue (subscription_id, event_count, bytes, enqueued_at, event_ids, content_hashes, emitted_at,
	events, traceparents) VALUES ($1, 1, 2, now(), ARRAY[$2::text], '{h}', ARRAY[now()], '{"{}"}', '{""}')`
