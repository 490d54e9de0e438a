package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// kafkaFloor is the cluster's own end-to-end latency, measured by Kafka's
// EndToEndLatency tool on the same cluster just before the run
// (`deploy/kafka.sh floor`, which scripts/e2e.sh runs first): one record
// at a time through a producer with acks=all and a consumer. Contrack's
// latency is printed beside it as a ratio, so a line says how far above
// what the cluster allows the pipeline is, whatever the machine's load.
type kafkaFloor struct{ p50, p99 time.Duration }

// parseKafkaFloor reads "P50,P99" (durations, as deploy/kafka.sh floor
// prints them after KAFKA_FLOOR=); empty is no floor.
func parseKafkaFloor(s string) (*kafkaFloor, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return nil, fmt.Errorf("-kafka-floor %q: want P50,P99 (e.g. 2ms,13ms)", s)
	}
	p50, err := time.ParseDuration(strings.TrimSpace(a))
	if err != nil {
		return nil, fmt.Errorf("-kafka-floor %q: %w", s, err)
	}
	p99, err := time.ParseDuration(strings.TrimSpace(b))
	if err != nil {
		return nil, fmt.Errorf("-kafka-floor %q: %w", s, err)
	}
	if p50 < 0 || p99 < p50 {
		return nil, fmt.Errorf("-kafka-floor %q: want 0 <= P50 <= P99", s)
	}
	return &kafkaFloor{p50, p99}, nil
}

// print writes the ledger's latency beside the floor: each quantile and
// how many times the floor's it is. The tool truncates to whole
// milliseconds, so a floor of 0 ms (a quiet cluster) counts as 1 ms.
func (f *kafkaFloor) print(w io.Writer, s summary) {
	if f == nil {
		return
	}
	ratio := func(d, floor time.Duration) string {
		return fmt.Sprintf("%.1f×", float64(d)/float64(max(floor, time.Millisecond)))
	}
	fmt.Fprintf(w, "%-28s beside Kafka's own floor (EndToEndLatency, acks=all, same cluster, p50 %s p99 %s): p50 %s = %s, p99 %s = %s\n",
		"", ms(f.p50), ms(f.p99), ms(s.P50), ratio(s.P50, f.p50), ms(s.P99), ratio(s.P99, f.p99))
}
