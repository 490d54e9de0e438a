package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/contrack/contrack/schemas"
)

// DeleteNamespace deletes every topic and consumer group of namespace ns
// (a test's or a load run's, on a shared cluster). The empty namespace is
// refused: it would mean every topic of the cluster.
func DeleteNamespace(ctx context.Context, cl *kgo.Client, ns schemas.Namespace) error {
	if ns == "" {
		return errors.New("kafka: delete namespace: the empty namespace is every topic")
	}
	adm := kadm.NewClient(cl)
	prefix := string(ns) + "."
	var errs []error
	groups, err := adm.ListGroups(ctx)
	if err != nil {
		errs = append(errs, fmt.Errorf("kafka: delete namespace %s: list groups: %w", ns, err))
	}
	var mine []string
	for _, g := range groups.Groups() {
		if strings.HasPrefix(g, prefix) {
			mine = append(mine, g)
		}
	}
	if len(mine) > 0 {
		if _, err := adm.DeleteGroups(ctx, mine...); err != nil {
			errs = append(errs, fmt.Errorf("kafka: delete namespace %s: delete groups: %w", ns, err))
		}
	}
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("kafka: delete namespace %s: list topics: %w", ns, err))...)
	}
	mine = mine[:0]
	for _, t := range topics.Names() {
		if strings.HasPrefix(t, prefix) {
			mine = append(mine, t)
		}
	}
	if len(mine) > 0 {
		if _, err := adm.DeleteTopics(ctx, mine...); err != nil {
			errs = append(errs, fmt.Errorf("kafka: delete namespace %s: delete topics: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}
