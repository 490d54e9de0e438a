// Package deploy holds how contrack is shipped: the image (Dockerfile), a
// docker-compose system on real Kafka, Postgres and ClickHouse, and
// Kubernetes manifests (k8s/, kustomize). It has no code; its tests check
// those files offline, strictly decoded into the Kubernetes API types and
// the compose specification, against the binary's own configuration table,
// roles and topics, so a renamed variable or a typo fails `make test`
// rather than a rollout.
package deploy
