package schemas

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// HeaderDLQStage names the stage that dead-lettered a record.
const HeaderDLQStage = "dlq-stage"

// Headers are the headers of a contrack record. Build every record's
// headers with Kafka (one constructor, so their names and order are the
// same everywhere); empty fields are left out.
type Headers struct {
	Type    string // HeaderType
	ID      string // HeaderID
	Account string // HeaderAccount
	Env     string // HeaderEnv
	// SCAC and CarrierKey are on pushed raw records.
	SCAC       string
	CarrierKey string
	// DeadLetter, on dead-letter records, says why and where from.
	DeadLetter *DeadLetter
	// Extra are further key/value pairs, in order (a dead letter's format,
	// tracking, payload size ...).
	Extra []Header
}

// Header is one extra key/value pair.
type Header struct{ Key, Value string }

// DeadLetter is the provenance of a dead-lettered record.
type DeadLetter struct {
	Reason string // HeaderDLQReason
	Stage  string // HeaderDLQStage: the stage that gave up on it
	// Topic, Partition and Offset locate the source record; Offset < 0
	// means it has none (a record refused before it was produced).
	Topic     string
	Partition int32
	Offset    int64
}

// DeadLetterOf is the provenance of r, dead-lettered by stage for reason.
func DeadLetterOf(r *kgo.Record, stage, reason string) *DeadLetter {
	return &DeadLetter{Reason: reason, Stage: stage, Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}
}

// Kafka returns the headers as Kafka record headers.
func (h Headers) Kafka() []kgo.RecordHeader {
	out := make([]kgo.RecordHeader, 0, 6+len(h.Extra))
	add := func(k, v string) {
		if v != "" {
			out = append(out, kgo.RecordHeader{Key: k, Value: []byte(v)})
		}
	}
	add(HeaderType, h.Type)
	add(HeaderID, h.ID)
	add(HeaderAccount, h.Account)
	add(HeaderEnv, h.Env)
	add(HeaderSCAC, h.SCAC)
	add(HeaderCarrierKey, h.CarrierKey)
	if d := h.DeadLetter; d != nil {
		add(HeaderDLQReason, d.Reason)
		add(HeaderDLQStage, d.Stage)
		add(HeaderDLQTopic, d.Topic)
		if d.Offset >= 0 && d.Topic != "" {
			add(HeaderDLQPartition, strconv.Itoa(int(d.Partition)))
			add(HeaderDLQOffset, strconv.FormatInt(d.Offset, 10))
		}
	}
	for _, e := range h.Extra {
		add(e.Key, e.Value)
	}
	return out
}
