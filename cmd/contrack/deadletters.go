package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/platform/kafka"
	"github.com/contrack/contrack/schemas"
)

const deadLettersUsage = "contrack admin dead-letters list [LIMIT] | show PARTITION:OFFSET | replay PARTITION:OFFSET..."

// defaultDeadLetterList is how many dead letters `list` prints at most.
const defaultDeadLetterList = 100

// adminDeadLetters runs `contrack admin dead-letters`: the normaliser's dead
// letters (a payload, or one element of it, that could not be read) listed
// with their reasons, one shown whole, or replayed after a fix: the raw
// record each came from is produced again to its topic, so the normaliser
// reads it anew (its deterministic ids make a replay of what did get
// through harmless).
func adminDeadLetters(ctx context.Context, brokers []string, ns schemas.Namespace, log *slog.Logger, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, deadLettersUsage)
	}
	topic := ns.Topic(schemas.TopicNormalizeDeadLetters)
	switch args[0] {
	case "list":
		limit := defaultDeadLetterList
		if len(args) > 2 {
			return fmt.Errorf("%w: %s", errUsage, deadLettersUsage)
		}
		if len(args) == 2 {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				return fmt.Errorf("%w: LIMIT must be a positive number (%s)", errUsage, deadLettersUsage)
			}
			limit = n
		}
		rs, err := kafka.ReadTopic(ctx, brokers, topic, limit, log)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTIME\tENV\tSCAC\tFORMAT\tTRACKING\tREASON")
		for _, r := range rs {
			fmt.Fprintf(tw, "%d:%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Partition, r.Offset, r.Timestamp.UTC().Format(time.RFC3339),
				kafka.Header(r, schemas.HeaderEnv), kafka.Header(r, schemas.HeaderSCAC), kafka.Header(r, "format"),
				kafka.Header(r, "tracking"), clipLine(kafka.Header(r, schemas.HeaderDLQReason), 160))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "%d dead letter(s)", len(rs))
		if len(rs) == limit {
			fmt.Fprintf(out, " (the first %d; `list N` shows more)", limit)
		}
		fmt.Fprintln(out)
		return nil
	case "show":
		if len(args) != 2 {
			return fmt.Errorf("%w: %s", errUsage, deadLettersUsage)
		}
		r, err := readDeadLetter(ctx, brokers, topic, args[1], log)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "id: %d:%d\ntime: %s\n", r.Partition, r.Offset, r.Timestamp.UTC().Format(time.RFC3339))
		for _, h := range r.Headers {
			fmt.Fprintf(out, "%s: %s\n", h.Key, h.Value)
		}
		fmt.Fprintf(out, "payload (%d bytes):\n%s\n", len(r.Value), r.Value)
		return nil
	case "replay":
		if len(args) < 2 {
			return fmt.Errorf("%w: %s", errUsage, deadLettersUsage)
		}
		cl, err := kafka.NewClient(brokers, log)
		if err != nil {
			return err
		}
		defer cl.Close()
		for _, id := range args[1:] {
			dl, err := readDeadLetter(ctx, brokers, topic, id, log)
			if err != nil {
				return err
			}
			src, p, o, err := deadLetterSource(dl)
			if err != nil {
				return fmt.Errorf("dead letter %s: %w", id, err)
			}
			raw, err := kafka.ReadAt(ctx, brokers, src, p, o, log)
			if errors.Is(err, kafka.ErrNoRecord) {
				return fmt.Errorf("dead letter %s: its raw record (%s %d:%d) is no longer kept: %w", id, src, p, o, err)
			}
			if err != nil {
				return err
			}
			again := &kgo.Record{Topic: src, Key: raw.Key, Value: raw.Value, Headers: raw.Headers}
			if err := kafka.ProduceSync(ctx, cl, again); err != nil {
				return err
			}
			fmt.Fprintf(out, "replayed %s: %s %d:%d produced again as %d:%d\n", id, src, p, o, again.Partition, again.Offset)
		}
		return nil
	}
	return fmt.Errorf("%w: %s", errUsage, deadLettersUsage)
}

// readDeadLetter reads the dead letter PARTITION:OFFSET of topic.
func readDeadLetter(ctx context.Context, brokers []string, topic, id string, log *slog.Logger) (*kgo.Record, error) {
	ps, offs, ok := strings.Cut(id, ":")
	p, err1 := strconv.ParseInt(ps, 10, 32)
	o, err2 := strconv.ParseInt(offs, 10, 64)
	if !ok || err1 != nil || err2 != nil || p < 0 || o < 0 {
		return nil, fmt.Errorf("%w: a dead letter is named PARTITION:OFFSET, as `list` prints it, not %q", errUsage, id)
	}
	r, err := kafka.ReadAt(ctx, brokers, topic, int32(p), o, log)
	if errors.Is(err, kafka.ErrNoRecord) {
		return nil, fmt.Errorf("no dead letter %s: %w", id, err)
	}
	return r, err
}

// deadLetterSource is the topic, partition and offset a dead letter names
// as its source.
func deadLetterSource(r *kgo.Record) (string, int32, int64, error) {
	src := kafka.Header(r, schemas.HeaderDLQTopic)
	p, err1 := strconv.ParseInt(kafka.Header(r, schemas.HeaderDLQPartition), 10, 32)
	o, err2 := strconv.ParseInt(kafka.Header(r, schemas.HeaderDLQOffset), 10, 64)
	if src == "" || err1 != nil || err2 != nil {
		return "", 0, 0, errors.New("it names no source record")
	}
	return src, int32(p), o, nil
}

// clipLine cuts s to n characters on one line.
func clipLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
