// kube-apiserver for the test environment (tests/kube-testenv), built from the
// k8s.io/kubernetes module at the version go.mod pins: the upstream command,
// unchanged (cmd/kube-apiserver/apiserver.go does the same).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
