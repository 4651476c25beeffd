//go:build tools

// Package tools pins the Kueue controller's module: `go build sigs.k8s.io/kueue/cmd/kueue`
// in this directory builds Kueue v0.19.2's own main package (see tests/kueue.sh).
package tools

import _ "sigs.k8s.io/kueue/cmd/kueue"
