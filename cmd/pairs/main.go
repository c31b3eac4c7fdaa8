// Command pairs turns band keys into candidate pairs; see its man page.
package main

import (
	"os"

	"github.com/neardup/neardup/internal/cli"
)

func main() { os.Exit(cli.Main(cli.Pairs())) }
