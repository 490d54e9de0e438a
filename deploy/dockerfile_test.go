package deploy

import (
	"encoding/json"
	"os"
	"path"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	Cmd, Args string
	Line      int
}

// parseDockerfile splits a Dockerfile into instructions: comments and blank
// lines dropped, backslash continuations joined. Enough structure to check
// the stages; no Docker engine or BuildKit needed.
func parseDockerfile(t *testing.T, name string) []instruction {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if cont, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(cont + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args), Line: start})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s: ends inside a continued instruction", name)
	}
	return out
}

// stage is one FROM … AS name block.
type stage struct {
	From, Name string
	Body       []instruction
}

func stages(t *testing.T, ins []instruction) []stage {
	t.Helper()
	var out []stage
	for _, in := range ins {
		switch {
		case in.Cmd == "FROM":
			f := strings.Fields(in.Args)
			s := stage{From: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.Name = f[2]
			}
			out = append(out, s)
		case in.Cmd == "ARG" && len(out) == 0: // global build arguments
		case len(out) == 0:
			t.Fatalf("line %d: %s before the first FROM", in.Line, in.Cmd)
		default:
			out[len(out)-1].Body = append(out[len(out)-1].Body, in)
		}
	}
	return out
}

// TestDockerfile: multi-stage, a static version-stamped build of
// cmd/contrack, a minimal final image running as non-root with contrack as
// its exec-form entrypoint.
func TestDockerfile(t *testing.T) {
	ins := parseDockerfile(t, "Dockerfile")
	st := stages(t, ins)
	if len(st) < 2 {
		t.Fatalf("Dockerfile has %d stage(s), want a build stage and a final one", len(st))
	}
	build, final := st[0], st[len(st)-1]
	if build.Name == "" {
		t.Errorf("the build stage (FROM %s) has no name to copy from", build.From)
	}
	if !strings.HasPrefix(build.From, "golang:") {
		t.Errorf("build stage FROM %s, want a golang image", build.From)
	}
	var built bool
	for _, in := range build.Body {
		if in.Cmd == "RUN" && strings.Contains(in.Args, "go build") {
			built = true
			for _, want := range []string{"CGO_ENABLED=0", "-X main.version=", "./cmd/contrack"} {
				if !strings.Contains(in.Args, want) {
					t.Errorf("line %d: go build lacks %q: %s", in.Line, want, in.Args)
				}
			}
		}
	}
	if !built {
		t.Errorf("the build stage runs no go build")
	}
	if _, err := os.Stat("../cmd/contrack/main.go"); err != nil {
		t.Errorf("the Dockerfile builds ./cmd/contrack: %v", err)
	}

	if !strings.HasPrefix(final.From, "gcr.io/distroless/static") && final.From != "scratch" {
		t.Errorf("final stage FROM %s, want distroless static or scratch", final.From)
	}
	var user, entrypoint string
	var copied bool
	for _, in := range final.Body {
		switch in.Cmd {
		case "USER":
			user = in.Args
		case "ENTRYPOINT":
			entrypoint = in.Args
		case "COPY":
			if strings.Contains(in.Args, "--from="+build.Name+" ") {
				copied = true
			}
		case "RUN":
			t.Errorf("line %d: RUN in the final stage (it has no shell): %s", in.Line, in.Args)
		}
	}
	if !copied {
		t.Errorf("the final stage copies nothing from %q", build.Name)
	}
	uid, _, _ := strings.Cut(user, ":")
	if uid == "" || uid == "0" || uid == "root" {
		t.Errorf("final stage USER %q, want a non-root user", user)
	}
	var ep []string
	if err := json.Unmarshal([]byte(entrypoint), &ep); err != nil || len(ep) != 1 {
		t.Fatalf("ENTRYPOINT %q: want the exec form with the binary alone (%v)", entrypoint, err)
	}
	if path.Base(ep[0]) != "contrack" {
		t.Errorf("ENTRYPOINT %q, want contrack", ep[0])
	}
}

// TestParseDockerfileCatchesMistakes: the checks above can fail.
func TestParseDockerfileCatchesMistakes(t *testing.T) {
	dir := t.TempDir()
	name := dir + "/Dockerfile"
	if err := os.WriteFile(name, []byte("# c\nFROM golang:1.26 AS build\nRUN go build \\\n  -o /x .\nFROM scratch\nUSER root\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := stages(t, parseDockerfile(t, name))
	if len(st) != 2 || st[0].Name != "build" || st[1].From != "scratch" {
		t.Fatalf("stages = %+v", st)
	}
	if got := st[0].Body[0].Args; got != "go build  -o /x ." {
		t.Errorf("continuation joined to %q", got)
	}
	if st[1].Body[0].Cmd != "USER" || st[1].Body[0].Args != "root" {
		t.Errorf("final body = %+v", st[1].Body)
	}
}
