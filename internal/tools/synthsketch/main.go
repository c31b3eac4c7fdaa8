// Command synthsketch writes synthetic MinHash signatures with planted
// groups of near-duplicates (internal/synth), for measuring the clustering
// methods:
//
//	go run ./internal/tools/synthsketch -docs 1000000 > sketches.tsv
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/neardup/neardup/internal/synthsketch"
)

func main() {
	var o synthsketch.Options
	flag.IntVar(&o.Docs, "docs", 1000000, "documents")
	flag.IntVar(&o.N, "n", 128, "signature length")
	flag.Float64Var(&o.CopyFraction, "copies", 0.3, "share of documents that are near-copies of an earlier one")
	flag.Float64Var(&o.MinSimilarity, "min", 0.8, "least planted similarity of a copy to its original")
	flag.Float64Var(&o.MaxSimilarity, "max", 1, "greatest planted similarity")
	flag.Float64Var(&o.Chain, "chain", 0, "share of copies that later copies may copy in turn (chains)")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed")
	flag.Parse()
	if err := synthsketch.Write(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "synthsketch:", err)
		os.Exit(1)
	}
}
