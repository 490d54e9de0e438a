package testenv

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// dockerServices are Postgres and ClickHouse containers started by testcontainers-go, once per test
// process, when a Docker engine answers and no CONTRACK_TEST_* variable
// names a server. testcontainers' reaper removes them when the process ends.
// Set CONTRACK_TEST_DOCKER=0 to use the local services even with Docker.
type dockerServices struct {
	pgURL, chAddr string
}

var (
	dockerOnce sync.Once
	docker     *dockerServices
	dockerErr  error
)

// fromDocker returns the containers, or nil when no Docker engine answers.
func fromDocker() (*dockerServices, error) {
	dockerOnce.Do(func() {
		if os.Getenv("CONTRACK_TEST_DOCKER") == "0" || !dockerAnswers() {
			return
		}
		docker, dockerErr = startContainers(context.Background())
	})
	return docker, dockerErr
}

func dockerAnswers() bool {
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return false
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return p.Health(ctx) == nil
}

func startContainers(ctx context.Context) (*dockerServices, error) {
	start := func(req testcontainers.ContainerRequest, port string) (string, error) {
		c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
		if err != nil {
			return "", fmt.Errorf("testenv: start %s: %w", req.Image, err)
		}
		host, err := c.Host(ctx)
		if err != nil {
			return "", err
		}
		p, err := c.MappedPort(ctx, port)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s:%d", host, p.Num()), nil
	}
	pg, err := start(testcontainers.ContainerRequest{
		Image:        "postgres:16",
		Env:          map[string]string{"POSTGRES_HOST_AUTH_METHOD": "trust"},
		ExposedPorts: []string{"5432/tcp"},
		WaitingFor:   wait.ForLog("database system is ready to accept connections").WithOccurrence(2),
	}, "5432/tcp")
	if err != nil {
		return nil, err
	}
	ch, err := start(testcontainers.ContainerRequest{
		Image:        "clickhouse/clickhouse-server:24.8",
		ExposedPorts: []string{"9000/tcp"},
		WaitingFor:   wait.ForListeningPort("9000/tcp"),
	}, "9000/tcp")
	if err != nil {
		return nil, err
	}
	return &dockerServices{pgURL: "postgres://postgres@" + pg + "/postgres?sslmode=disable", chAddr: ch}, nil
}
