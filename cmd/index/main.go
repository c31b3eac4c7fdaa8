// Command index keeps SimHash fingerprints in a file and answers Hamming
// distance queries; see its man page.
package main

import (
	"os"

	"github.com/neardup/neardup/internal/cli"
)

func main() { os.Exit(cli.Main(cli.Index())) }
