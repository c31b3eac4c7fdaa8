// Command genman writes the man page of every stage into a directory
// (default man/) and its manual as the package comment of
// <cmd>/<stage>/doc.go (default cmd/), from the same descriptions and flag
// definitions the binaries use.
//
//	go run ./internal/tools/genman [MANDIR [CMDDIR]]
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/internal/cli"
)

func main() {
	dir, cmd := "man", "cmd"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if len(os.Args) > 2 {
		cmd = os.Args[2]
	}
	for _, s := range cli.Stages() {
		page, err := cli.Man(s)
		if err != nil {
			fail(fmt.Errorf("%s: %v", s.Name, err))
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name+".1"), []byte(page), 0o644); err != nil {
			fail(err)
		}
		doc, err := cli.Doc(s)
		if err != nil {
			fail(fmt.Errorf("%s: %v", s.Name, err))
		}
		if err := os.WriteFile(filepath.Join(cmd, s.Name, "doc.go"), doc, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "genman: %v\n", err)
	os.Exit(1)
}
