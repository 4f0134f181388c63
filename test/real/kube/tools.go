//go:build tools

// The Kubernetes commands built by `bun run kube:build` (test/real/build.ts) are upstream's own
// main packages, built from this module with `go build k8s.io/kubernetes/cmd/<name>`; these imports
// keep their dependencies in go.mod and go.sum through `go mod tidy`.
package tools

import (
	_ "k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
)
