package main

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// runHealthcheck is the container healthcheck: the image has no shell or
// curl, so `contrack healthcheck URL` GETs URL and fails unless it answers
// 2xx (with --any-status, unless it answers 5xx or not at all: a server
// without a health path, such as the sandbox carriers).
func runHealthcheck(ctx context.Context, args []string) error {
	anyStatus := false
	if len(args) > 0 && args[0] == "--any-status" {
		anyStatus, args = true, args[1:]
	}
	if len(args) != 1 {
		return fmt.Errorf("%w: contrack healthcheck [--any-status] URL", errUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if anyStatus {
		ok = resp.StatusCode < 500
	}
	if !ok {
		return fmt.Errorf("healthcheck: %s answered %d", args[0], resp.StatusCode)
	}
	return nil
}
