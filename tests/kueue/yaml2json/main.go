// Command yaml2json prints each YAML document of its input (files, or stdin) as one line
// of JSON, so that tests/kueue.sh can read rendered manifests and pod contracts with jq.
// It uses sigs.k8s.io/yaml, the converter Kubernetes clients use.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/yaml"
)

func convert(name string, r io.Reader, w *bufio.Writer) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for i, doc := range bytes.Split(append([]byte("\n"), data...), []byte("\n---")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", name, i+1, err)
		}
		if string(j) == "null" {
			continue
		}
		w.Write(j)
		w.WriteByte('\n')
	}
	return nil
}

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	if len(os.Args) < 2 {
		if err := convert("stdin", os.Stdin, w); err != nil {
			fmt.Fprintln(os.Stderr, "yaml2json:", err)
			os.Exit(1)
		}
		return
	}
	for _, f := range os.Args[1:] {
		fh, err := os.Open(f)
		if err == nil {
			err = convert(f, fh, w)
			fh.Close()
		}
		if err != nil {
			w.Flush()
			fmt.Fprintln(os.Stderr, "yaml2json:", err)
			os.Exit(1)
		}
	}
}
