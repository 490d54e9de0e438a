package deploy

import (
	"context"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/contrack/contrack/cmd/contrack/roles"
	"github.com/contrack/contrack/platform/secretbox"
	"github.com/contrack/contrack/schemas"
)

// loadCompose loads docker-compose.yml with the compose-spec loader: schema
// validation on (unknown keys are errors), env files read, no Docker
// engine, and as the outer environment only the secrets compose-secrets.sh
// writes (what compose reads from deploy/.env).
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	p, err := loadComposeWith(composeSecrets(t))
	if err != nil {
		t.Fatalf("load docker-compose.yml: %v", err)
	}
	return p
}

func loadComposeWith(env types.Mapping) (*types.Project, error) {
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  ".",
		ConfigFiles: []types.ConfigFile{{Filename: "docker-compose.yml"}},
		Environment: env,
	})
}

// composeSecrets runs compose-secrets.sh into a temporary file and returns
// what it wrote.
func composeSecrets(t *testing.T) types.Mapping {
	t.Helper()
	file := filepath.Join(t.TempDir(), ".env")
	if out, err := exec.Command("sh", "compose-secrets.sh", file).CombinedOutput(); err != nil {
		t.Fatalf("compose-secrets.sh: %v\n%s", err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := types.Mapping{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		m[k] = v
	}
	return m
}

func env(s types.ServiceConfig, name string) string {
	if v, ok := s.Environment[name]; ok && v != nil {
		return *v
	}
	return ""
}

// TestComposeLoadsAndValidates also proves the loader is strict: an unknown
// service key is refused.
func TestComposeLoadsAndValidates(t *testing.T) {
	loadCompose(t)
	// The stores-only file services.sh points at validates too.
	if _, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  ".",
		ConfigFiles: []types.ConfigFile{{Filename: "stores.compose.yml"}},
		Environment: types.Mapping{},
	}, func(o *loader.Options) { o.SetProjectName("stores", true) }); err != nil {
		t.Errorf("stores.compose.yml: %v", err)
	}
	dir := t.TempDir()
	bad := "services:\n  api:\n    image: contrack:dev\n    replica: 2\n"
	if err := os.WriteFile(dir+"/compose.yml", []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []types.ConfigFile{{Filename: dir + "/compose.yml"}},
		Environment: types.Mapping{},
	}, func(o *loader.Options) { o.SetProjectName("strict", true) })
	if err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("unknown key `replica` accepted (err %v)", err)
	}
}

// TestComposeStages: each deployed role of the binary's role table its own
// service running the contrack image with its role, as many replicas as
// the table says, a healthcheck on the listener the table probes,
// non-root and read-only, started after the migration job and the topics
// job when it uses the stores; every variable is one the binary reads, and
// every contrack service runs a command of the binary.
func TestComposeStages(t *testing.T) {
	p := loadCompose(t)
	table := configTable(t)
	cmds := commands(t)
	for _, r := range deployedRoles(t) {
		role := r.Name
		s, ok := p.Services[role]
		if !ok {
			t.Errorf("no service %q for the role %s of cmd/contrack/roles", role, role)
			continue
		}
		if !slices.Equal(s.Command, types.ShellCommand{role}) {
			t.Errorf("%s: command %v, want [%s]", role, s.Command, role)
		}
		if s.Deploy == nil || s.Deploy.Replicas == nil || *s.Deploy.Replicas != r.Replicas {
			t.Errorf("%s: replicas unset or not the %d of the role table", role, r.Replicas)
		}
		if s.HealthCheck == nil || s.HealthCheck.Disable || len(s.HealthCheck.Test) < 2 {
			t.Errorf("%s: no healthcheck", role)
		} else {
			checkHealthcheckPort(t, r, s)
		}
		if len(r.Stores) > 0 {
			for _, dep := range []string{"migrate", "kafka-topics"} {
				if d, ok := s.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionCompletedSuccessfully {
					t.Errorf("%s: does not wait for %s to complete (%+v)", role, dep, s.DependsOn)
				}
			}
		}
	}
	for name, s := range p.Services {
		if !strings.HasPrefix(s.Image, "contrack:") {
			continue
		}
		if len(s.Command) == 0 || !cmds[s.Command[0]] {
			t.Errorf("%s: command %v is not a role of cmd/contrack/roles nor a tool of cmd/contrack/main.go", name, s.Command)
		}
		if r, ok := roles.Lookup(name); ok && !r.Deployed {
			t.Errorf("%s: a service for a role the table does not deploy", name)
		}
		if s.Build == nil || s.Build.Dockerfile != "deploy/Dockerfile" {
			t.Errorf("%s: builds %+v, want deploy/Dockerfile", name, s.Build)
		} else if _, err := os.Stat("../" + s.Build.Dockerfile); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if uid, _, _ := strings.Cut(s.User, ":"); uid == "" || uid == "0" || uid == "root" {
			t.Errorf("%s: user %q, want non-root", name, s.User)
		}
		if !s.ReadOnly || !slices.Contains(s.CapDrop, "ALL") {
			t.Errorf("%s: read_only %v, cap_drop %v", name, s.ReadOnly, s.CapDrop)
		}
		for v := range s.Environment {
			if !knownVar(table, v) {
				t.Errorf("%s: %s is not in cmd/contrack/config.go's table", name, v)
			}
		}
		// Without it each container would generate its own key into its tmpfs.
		if needsKey(name) && secretbox.CheckKey(env(s, "CONTRACK_SECRET_KEY")) != nil {
			t.Errorf("%s: CONTRACK_SECRET_KEY unset or weak", name)
		}
		if dd := env(s, "CONTRACK_DATA_DIR"); !slices.ContainsFunc(s.Tmpfs, func(m string) bool { return strings.HasPrefix(dd, m+"/") }) {
			t.Errorf("%s: CONTRACK_DATA_DIR %q is not under a tmpfs %v", name, dd, s.Tmpfs)
		}
	}
	m, ok := p.Services["migrate"]
	if !ok || !slices.Equal(m.Command, types.ShellCommand{"migrate"}) {
		t.Errorf("no migrate job running `contrack migrate`")
	}
	for _, dep := range []string{"postgres", "clickhouse"} {
		if m.DependsOn[dep].Condition != types.ServiceConditionHealthy {
			t.Errorf("migrate does not wait for %s to be healthy", dep)
		}
	}

	// The env example holds only variables the binary reads.
	b, err := os.ReadFile("contrack.env.example")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "=")
		if !knownVar(table, name) {
			t.Errorf("contrack.env.example: %s is not in cmd/contrack/config.go's table", name)
		}
	}
}

var urlPort = regexp.MustCompile(`^https?://127\.0\.0\.1:([0-9]+)/`)

// needsKey: the service runs a role that seals, opens or signs secrets, or
// the migration job (which opens the stores).
func needsKey(service string) bool {
	r, ok := roles.Lookup(service)
	return !ok || r.SecretKey
}

// checkHealthcheckPort: the healthcheck asks the port the service's
// configuration makes it listen on for the role's probe (the admin
// listener's /readyz, or the sandbox carriers' port).
func checkHealthcheckPort(t *testing.T, r roles.Role, s types.ServiceConfig) {
	t.Helper()
	role := r.Name
	url := s.HealthCheck.Test[len(s.HealthCheck.Test)-1]
	m := urlPort.FindStringSubmatch(url)
	if m == nil {
		t.Errorf("%s: healthcheck %v asks no local URL", role, s.HealthCheck.Test)
		return
	}
	listen, path := env(s, r.Probe), "/readyz"
	if r.Probe != roles.ListenAdmin {
		path = "/"
	}
	if want := strconv.Itoa(addrPort(t, role, listen)); m[1] != want {
		t.Errorf("%s: healthcheck %s, but it listens on %s", role, url, listen)
	}
	if !strings.HasSuffix(url, path) {
		t.Errorf("%s: healthcheck %s, want path %s", role, url, path)
	}
	if s.HealthCheck.Test[1] != "/usr/local/bin/contrack" || s.HealthCheck.Test[2] != "healthcheck" {
		t.Errorf("%s: healthcheck %v, want the image's `contrack healthcheck`", role, s.HealthCheck.Test)
	}
}

// TestComposeWiring: the addresses services give each other are the ones
// the other side listens on.
func TestComposeWiring(t *testing.T) {
	p := loadCompose(t)
	sb := p.Services["sandbox"]
	sbPort := addrPort(t, "sandbox", env(sb, "CONTRACK_SANDBOX_ADDR"))
	for _, role := range []string{"api", "poller"} {
		s := p.Services[role]
		want := net.JoinHostPort("sandbox", strconv.Itoa(sbPort))
		if got := env(s, "CONTRACK_SANDBOX_ADDR"); got != want {
			t.Errorf("%s: CONTRACK_SANDBOX_ADDR %q, want %q", role, got, want)
		}
	}
	api := p.Services["api"]
	apiPort := strconv.Itoa(addrPort(t, "api", env(api, "CONTRACK_HTTP_ADDR")))
	if !slices.Contains(api.Expose, apiPort) {
		t.Errorf("api listens on %s but exposes %v", apiPort, api.Expose)
	}
	edge := p.Configs["edge"].Content
	if !strings.Contains(edge, "server api:"+apiPort+";") {
		t.Errorf("the edge proxy does not send to api:%s:\n%s", apiPort, edge)
	}
	e := p.Services["edge"]
	if len(e.Ports) != 1 || e.Ports[0].Published != "8080" || e.Ports[0].HostIP != "127.0.0.1" {
		t.Errorf("edge ports %+v: README's curl flow uses localhost:8080", e.Ports)
	}
	// The api believes X-Real-IP only from edge: edge's fixed address on
	// the compose network is the one trusted proxy.
	var (
		edgeAddr netip.Addr
		err      error
	)
	if n := e.Networks["default"]; n == nil {
		t.Errorf("edge has no fixed address on the default network")
	} else if edgeAddr, err = netip.ParseAddr(n.Ipv4Address); err != nil {
		t.Errorf("edge ipv4_address %q: %v", n.Ipv4Address, err)
	}
	var subnet netip.Prefix
	if cfgs := p.Networks["default"].Ipam.Config; len(cfgs) == 1 {
		subnet, err = netip.ParsePrefix(cfgs[0].Subnet)
	}
	if err != nil || !subnet.Contains(edgeAddr) {
		t.Errorf("edge's address %v is not in the compose network's fixed subnet %v (%v)", edgeAddr, subnet, err)
	}
	if env(api, "CONTRACK_CLIENT_IP_HEADER") != "" {
		trusted, err := netip.ParsePrefix(env(api, "CONTRACK_TRUSTED_PROXIES"))
		if err != nil || trusted.Bits() != 32 || !trusted.Contains(edgeAddr) {
			t.Errorf("api CONTRACK_TRUSTED_PROXIES %q, want edge's address %v alone (%v)", env(api, "CONTRACK_TRUSTED_PROXIES"), edgeAddr, err)
		}
	}

	// Stores: the URLs the contrack services use name the compose services.
	var brokers []string
	for _, b := range strings.Split(env(api, "KAFKA_BROKERS"), ",") {
		host, _, _ := net.SplitHostPort(b)
		brokers = append(brokers, host)
	}
	if !slices.Equal(brokers, []string{"kafka-1", "kafka-2", "kafka-3"}) {
		t.Errorf("KAFKA_BROKERS names %v", brokers)
	}
	if host, _, _ := net.SplitHostPort(env(api, "CONTRACK_CLICKHOUSE_ADDR")); host != "clickhouse" {
		t.Errorf("CONTRACK_CLICKHOUSE_ADDR names %q", host)
	}
	pg := p.Services["postgres"]
	wantPG := "postgres://" + env(pg, "POSTGRES_USER") + ":" + env(pg, "POSTGRES_PASSWORD") + "@postgres:5432/" + env(pg, "POSTGRES_DB") + "?"
	if !strings.HasPrefix(env(api, "CONTRACK_PG_URL"), wantPG) {
		t.Errorf("CONTRACK_PG_URL does not match the postgres service (%s…)", wantPG)
	}
}

// TestComposeKafka: three KRaft brokers of the official image, one quorum,
// replication the topics' settings can be met with.
func TestComposeKafka(t *testing.T) {
	p := loadCompose(t)
	var voters string
	for i := 1; i <= 3; i++ {
		name := "kafka-" + strconv.Itoa(i)
		s, ok := p.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		if !strings.HasPrefix(s.Image, "apache/kafka:") {
			t.Errorf("%s: image %s, want the official apache/kafka", name, s.Image)
		}
		if env(s, "KAFKA_NODE_ID") != strconv.Itoa(i) || env(s, "KAFKA_PROCESS_ROLES") != "broker,controller" {
			t.Errorf("%s: node id %q roles %q", name, env(s, "KAFKA_NODE_ID"), env(s, "KAFKA_PROCESS_ROLES"))
		}
		if env(s, "KAFKA_ADVERTISED_LISTENERS") != "PLAINTEXT://"+name+":9092" {
			t.Errorf("%s: advertises %q", name, env(s, "KAFKA_ADVERTISED_LISTENERS"))
		}
		if voters == "" {
			voters = env(s, "KAFKA_CONTROLLER_QUORUM_VOTERS")
		} else if env(s, "KAFKA_CONTROLLER_QUORUM_VOTERS") != voters {
			t.Errorf("%s: another quorum", name)
		}
		if s.HealthCheck == nil || len(s.HealthCheck.Test) == 0 {
			t.Errorf("%s: no healthcheck", name)
		}
	}
	if voters != "1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093" {
		t.Errorf("quorum voters %q", voters)
	}
	job := p.Services["kafka-topics"]
	for i := 1; i <= 3; i++ {
		if job.DependsOn["kafka-"+strconv.Itoa(i)].Condition != types.ServiceConditionHealthy {
			t.Errorf("kafka-topics does not wait for kafka-%d", i)
		}
	}
}

var createLine = regexp.MustCompile(`(?m)^create (\S+) ([0-9]+) ([a-z,]+) (-?[0-9]+)$`)

// TestTopicsJobMatchesDocs: kafka-topics.sh creates every topic the binary
// uses with exactly the settings docs/operations.md gives.
func TestTopicsJobMatchesDocs(t *testing.T) {
	b, err := os.ReadFile("kafka-topics.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`replication=\$\{KAFKA_REPLICATION:-([0-9]+)\}`).FindSubmatch(b)
	if m == nil {
		t.Fatal("kafka-topics.sh: no default replication")
	}
	replication, _ := strconv.Atoi(string(m[1]))
	docs := docsTopics(t)
	created := map[string]bool{}
	for _, c := range createLine.FindAllStringSubmatch(string(b), -1) {
		topic := c[1]
		created[topic] = true
		parts, _ := strconv.Atoi(c[2])
		got := topicSetting{Partitions: parts, Replication: replication, Cleanup: c[3], Retention: c[4]}
		if want, ok := docs[topic]; !ok {
			t.Errorf("kafka-topics.sh creates %s, which docs/operations.md does not list", topic)
		} else if got != want {
			t.Errorf("%s: kafka-topics.sh %+v, docs/operations.md %+v", topic, got, want)
		}
	}
	for _, topic := range schemas.AllTopics {
		if !created[topic] {
			t.Errorf("kafka-topics.sh does not create %s", topic)
		}
	}
	p := loadCompose(t)
	job := p.Services["kafka-topics"]
	if !slices.ContainsFunc(job.Volumes, func(v types.ServiceVolumeConfig) bool {
		return filepath.Base(v.Source) == "kafka-topics.sh" && v.Target == job.Entrypoint[len(job.Entrypoint)-1]
	}) {
		t.Errorf("the kafka-topics job does not run deploy/kafka-topics.sh: %v %+v", job.Entrypoint, job.Volumes)
	}
	if env(p.Services["api"], "CONTRACK_KAFKA_PARTITIONS") != strconv.Itoa(docs[schemas.TopicEvents].Partitions) {
		t.Errorf("CONTRACK_KAFKA_PARTITIONS differs from the topics' partitions")
	}
}

// TestComposeHasNoDefaultPasswords: compose ships no secret key and no
// store password. Without deploy/.env it refuses to start, naming the
// missing variable and the script that writes it; compose-secrets.sh writes
// random values (a key secretbox accepts, passwords of 48 hex characters),
// readable by its owner only, and keeps them when run again; every service
// gets exactly those, and ClickHouse no longer keeps its password-less
// default user reachable. Kafka's plaintext listeners are not published.
func TestComposeHasNoDefaultPasswords(t *testing.T) {
	if _, err := loadComposeWith(types.Mapping{}); err == nil || !strings.Contains(err.Error(), "compose-secrets.sh") {
		t.Fatalf("compose loads without the secrets (err %v)", err)
	}
	file := filepath.Join(t.TempDir(), ".env")
	run := func() {
		if out, err := exec.Command("sh", "compose-secrets.sh", file).CombinedOutput(); err != nil {
			t.Fatalf("compose-secrets.sh: %v\n%s", err, out)
		}
	}
	run()
	first, _ := os.ReadFile(file)
	run()
	if again, _ := os.ReadFile(file); string(again) != string(first) {
		t.Fatalf("a second run changed the secrets:\n%s\n%s", first, again)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Fatalf("deploy/.env mode %v, want 0600", st.Mode().Perm())
	}
	secrets := composeSecrets(t)
	if err := secretbox.CheckKey(secrets["CONTRACK_SECRET_KEY"]); err != nil {
		t.Errorf("the generated CONTRACK_SECRET_KEY %v", err)
	}
	for _, pw := range []string{"POSTGRES_PASSWORD", "CLICKHOUSE_PASSWORD"} {
		if !regexp.MustCompile(`^[0-9a-f]{48}$`).MatchString(secrets[pw]) {
			t.Errorf("%s = %q, want 48 random hex characters", pw, secrets[pw])
		}
	}
	if secrets["POSTGRES_PASSWORD"] == secrets["CLICKHOUSE_PASSWORD"] {
		t.Error("the two passwords are the same")
	}

	p, err := loadComposeWith(secrets)
	if err != nil {
		t.Fatal(err)
	}
	pg, chs := p.Services["postgres"], p.Services["clickhouse"]
	if env(pg, "POSTGRES_PASSWORD") != secrets["POSTGRES_PASSWORD"] || pg.Environment["POSTGRES_HOST_AUTH_METHOD"] != nil {
		t.Errorf("postgres: password %q, auth method %v", env(pg, "POSTGRES_PASSWORD"), pg.Environment["POSTGRES_HOST_AUTH_METHOD"])
	}
	if env(chs, "CLICKHOUSE_PASSWORD") != secrets["CLICKHOUSE_PASSWORD"] || env(chs, "CLICKHOUSE_USER") == "" || chs.Environment["CLICKHOUSE_SKIP_USER_SETUP"] != nil {
		t.Errorf("clickhouse: user %q password %q, skip user setup %v", env(chs, "CLICKHOUSE_USER"), env(chs, "CLICKHOUSE_PASSWORD"), chs.Environment["CLICKHOUSE_SKIP_USER_SETUP"])
	}
	for name, s := range p.Services {
		if !strings.HasPrefix(s.Image, "contrack:") || !needsKey(name) {
			continue
		}
		if env(s, "CONTRACK_SECRET_KEY") != secrets["CONTRACK_SECRET_KEY"] {
			t.Errorf("%s: CONTRACK_SECRET_KEY is not the one in deploy/.env", name)
		}
		if !strings.Contains(env(s, "CONTRACK_PG_URL"), ":"+secrets["POSTGRES_PASSWORD"]+"@") {
			t.Errorf("%s: CONTRACK_PG_URL %q lacks the Postgres password", name, env(s, "CONTRACK_PG_URL"))
		}
		if env(s, "CONTRACK_CLICKHOUSE_USER") != env(chs, "CLICKHOUSE_USER") || env(s, "CONTRACK_CLICKHOUSE_PASSWORD") != secrets["CLICKHOUSE_PASSWORD"] {
			t.Errorf("%s: connects to ClickHouse as %q, not the user the clickhouse service creates", name, env(s, "CONTRACK_CLICKHOUSE_USER"))
		}
	}
	// No secret in the files themselves.
	for _, f := range []string{"docker-compose.yml", "contrack.env.example"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			if m := regexp.MustCompile(`(PASSWORD|SECRET_KEY)["']?\s*[:=]\s*["']?([^\s"'$?]+)`).FindStringSubmatch(line); m != nil {
				t.Errorf("%s: a literal secret: %s", f, strings.TrimSpace(line))
			}
			if regexp.MustCompile(`postgres://[^:@/]+:[^$@]+@`).MatchString(line) {
				t.Errorf("%s: a Postgres URL with a literal password: %s", f, strings.TrimSpace(line))
			}
		}
	}
	for i := 1; i <= 3; i++ {
		if k := p.Services["kafka-"+strconv.Itoa(i)]; len(k.Ports) > 0 {
			t.Errorf("kafka-%d publishes %v: its plaintext listeners are for the compose network only", i, k.Ports)
		}
	}
}
