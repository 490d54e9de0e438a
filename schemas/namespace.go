package schemas

import (
	"fmt"
	"strings"
)

// Namespace separates deployments that share one Kafka cluster (staging
// beside production, test runs beside each other): every topic, consumer
// group and transactional id of a deployment is prefixed with its
// namespace and a dot, so none reads or fences another's. The empty
// namespace (the default) leaves every name as the constants above say.
//
// Topic and group constants stay the logical names: a stage turns them
// into the names it uses on the cluster with Topic and Group, and compares
// a fetched record's topic with Topic(TopicX), never with TopicX. Records
// stored outside Kafka (the outbox) keep the logical name; the producer
// applies the namespace when it sends them.
//
// Changing a running deployment's namespace is like renaming every topic
// and group: it starts from empty topics and re-consumes nothing.
type Namespace string

// MaxNamespaceLen bounds a namespace so that every prefixed name stays
// within Kafka's 249-character limit for topic names.
const MaxNamespaceLen = 64

// Topic is the name of the logical topic on the cluster.
func (ns Namespace) Topic(topic string) string { return ns.prefix(topic) }

// Topics is Topic of each.
func (ns Namespace) Topics(topics ...string) []string {
	out := make([]string, len(topics))
	for i, t := range topics {
		out[i] = ns.Topic(t)
	}
	return out
}

// Group is the name of the logical consumer group on the cluster.
func (ns Namespace) Group(group string) string { return ns.prefix(group) }

// TransactionalID is the name of a transactional producer on the cluster:
// without it, two deployments' normalisers with the same configured id
// would fence each other.
func (ns Namespace) TransactionalID(id string) string { return ns.prefix(id) }

// Logical is the logical name of a topic on the cluster ("" if the topic
// is not in the namespace).
func (ns Namespace) Logical(topic string) string {
	if ns == "" {
		return topic
	}
	rest, ok := strings.CutPrefix(topic, string(ns)+".")
	if !ok {
		return ""
	}
	return rest
}

func (ns Namespace) prefix(name string) string {
	if ns == "" {
		return name
	}
	return string(ns) + "." + name
}

// Validate reports a namespace Kafka cannot take in a topic name: at most
// MaxNamespaceLen characters of ASCII letters, digits, '-' and '_', with
// '.' only between other characters.
func (ns Namespace) Validate() error {
	s := string(ns)
	if s == "" {
		return nil
	}
	if len(s) > MaxNamespaceLen {
		return fmt.Errorf("kafka namespace %q: longer than %d characters", s, MaxNamespaceLen)
	}
	if s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return fmt.Errorf("kafka namespace %q: a dot only between other characters", s)
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("kafka namespace %q: only ASCII letters, digits, '.', '-' and '_'", s)
		}
	}
	return nil
}
