package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// idleRead is how long ReadTopic waits for more records before it takes a
// partition as read to its end.
const idleRead = time.Second

// ErrNoRecord is returned by ReadAt for an offset the topic no longer (or
// does not yet) hold.
var ErrNoRecord = errors.New("kafka: no record at that offset")

// ReadTopic reads topic's committed records from its start up to its end as
// the call began, at most limit of them (the oldest, by partition then
// offset): an operator's bounded look at a topic such as a dead-letter one,
// not a consume loop (it commits nothing and joins no group).
func ReadTopic(ctx context.Context, brokers []string, topic string, limit int, log *slog.Logger) ([]*kgo.Record, error) {
	ends, err := offsetRanges(ctx, brokers, topic, log)
	if err != nil {
		return nil, err
	}
	starts := map[int32]kgo.Offset{}
	want := map[int32]int64{}
	for p, end := range ends {
		if end.start < end.end {
			starts[p] = kgo.NewOffset().At(end.start)
			want[p] = end.end
		}
	}
	var out []*kgo.Record
	if len(starts) == 0 {
		return out, nil
	}
	cl, err := NewClient(brokers, log, kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	// Read until every partition reached the end it had, or a poll finds
	// nothing more (the rest are transaction markers or aborted records).
	for len(want) > 0 && len(out) < limit {
		pctx, cancel := context.WithTimeout(ctx, idleRead)
		fs := cl.PollFetches(pctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := 0
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("kafka: read %s: %w", topic, fe.Err)
			}
		}
		fs.EachRecord(func(r *kgo.Record) {
			end, ok := want[r.Partition]
			if !ok || r.Offset >= end {
				return
			}
			n++
			if len(out) < limit {
				out = append(out, r)
			}
			if r.Offset+1 >= end {
				delete(want, r.Partition)
			}
		})
		if n == 0 {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out, nil
}

// ReadAt reads the record of topic at partition and offset, or
// ErrNoRecord when the topic does not hold it.
func ReadAt(ctx context.Context, brokers []string, topic string, partition int32, offset int64, log *slog.Logger) (*kgo.Record, error) {
	ends, err := offsetRanges(ctx, brokers, topic, log)
	if err != nil {
		return nil, err
	}
	if e, ok := ends[partition]; !ok || offset < e.start || offset >= e.end {
		return nil, fmt.Errorf("%w: %s partition %d offset %d", ErrNoRecord, topic, partition, offset)
	}
	cl, err := NewClient(brokers, log, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(offset)}}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	for {
		pctx, cancel := context.WithTimeout(ctx, idleRead)
		fs := cl.PollFetches(pctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, fe := range fs.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) {
				return nil, fmt.Errorf("kafka: read %s: %w", topic, fe.Err)
			}
		}
		if fs.NumRecords() == 0 && len(fs.Errors()) > 0 {
			return nil, fmt.Errorf("%w: %s partition %d offset %d (a transaction marker or an aborted record)", ErrNoRecord, topic, partition, offset)
		}
		var found *kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if found == nil && r.Offset == offset {
				found = r
			}
		})
		if found != nil {
			return found, nil
		}
		if fs.NumRecords() > 0 {
			return nil, fmt.Errorf("%w: %s partition %d offset %d (a transaction marker or an aborted record)", ErrNoRecord, topic, partition, offset)
		}
	}
}

type offsetRange struct{ start, end int64 }

// offsetRanges returns each partition's first and next offset.
func offsetRanges(ctx context.Context, brokers []string, topic string, log *slog.Logger) (map[int32]offsetRange, error) {
	cl, err := NewClient(brokers, log)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka: offsets of %s: %w", topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka: offsets of %s: %w", topic, err)
	}
	out := map[int32]offsetRange{}
	ends.Each(func(o kadm.ListedOffset) {
		s, _ := starts.Lookup(topic, o.Partition)
		out[o.Partition] = offsetRange{start: s.Offset, end: o.Offset}
	})
	return out, nil
}
