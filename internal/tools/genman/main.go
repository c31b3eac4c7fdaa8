// Command genman writes the man page of every stage into a directory
// (default man/), from the same flag definitions the binaries use.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/neardup/neardup/internal/cli"
)

func main() {
	dir := "man"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, s := range cli.Stages() {
		page, err := cli.Man(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "genman: %s: %v\n", s.Name, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name+".1"), []byte(page), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "genman: %v\n", err)
			os.Exit(1)
		}
	}
}
