// Command gencorpus writes a synthetic corpus with planted near-duplicates
// (see package synth) to standard output, and its ground truth to a file:
//
//	go run ./internal/tools/gencorpus -n 100000 -seed 1 -truth truth.tsv > corpus.tsv
//	go run ./internal/tools/gencorpus -n 1000 -format jsonl -ins 0.02 -del 0 -sub 0 > corpus.jsonl
//	go run ./internal/tools/gencorpus -n 10000000 -format jsonl -lengths crawl -max-words 20000 -o crawl.jsonl.zst
//
// The ground truth has one line per planted document: copy TAB source TAB
// kind (exact, edit or contain). -h lists the flags.
package main

import (
	"os"

	"github.com/neardup/neardup/internal/synth"
)

func main() { os.Exit(synth.Main(os.Args[1:], os.Stdout, os.Stderr)) }
