package stage

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

// endOffsets returns the current end offset of every subscriptions partition.
func endOffsets(ctx context.Context, cl *kgo.Client) (map[int32]int64, error) {
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, schemas.TopicSubscriptions)
	if err != nil {
		return nil, fmt.Errorf("list end offsets: %w", err)
	}
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil {
			out[o.Partition] = o.Offset
		}
	})
	return out, nil
}
