// Command bandindex keeps MinHash band keys on disk, for new documents to
// be paired with everything seen before; see its man page.
package main

import (
	"os"

	"github.com/neardup/neardup/internal/cli"
)

func main() { os.Exit(cli.Main(cli.BandIndex())) }
