// Command docfreq counts in how many documents each shingle occurs; see its
// man page.
package main

import (
	"os"

	"github.com/neardup/neardup/internal/cli"
)

func main() { os.Exit(cli.Main(cli.DocFreq())) }
