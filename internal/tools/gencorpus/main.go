// Command gencorpus writes a synthetic corpus with planted near-duplicates
// (see package synth) to standard output, and its ground truth to a file:
//
//	go run ./internal/tools/gencorpus -n 100000 -seed 1 -truth truth.tsv > corpus.tsv
//	go run ./internal/tools/gencorpus -n 1000 -format jsonl -ins 0.02 -del 0 -sub 0 > corpus.jsonl
//
// The ground truth has one line per planted document: copy TAB source TAB
// kind (exact, edit or contain).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/neardup/neardup/internal/synth"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	opt := synth.DefaultOptions()
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&opt.Docs, "n", opt.Docs, "number of documents, originals and planted")
	fs.Uint64Var(&opt.Seed, "seed", opt.Seed, "random seed: the same seed and flags give the same corpus")
	format := fs.String("format", "tsv", "output format: tsv (id TAB text) or jsonl ({\"id\":…,\"text\":…})")
	truthName := fs.String("truth", "", "write the ground truth (copy TAB source TAB kind) to `FILE`")
	fs.IntVar(&opt.MinWords, "min-words", opt.MinWords, "least number of words of an original")
	fs.IntVar(&opt.MaxWords, "max-words", opt.MaxWords, "largest number of words of an original (lengths are log-uniform)")
	fs.IntVar(&opt.Vocabulary, "vocab", opt.Vocabulary, "number of distinct words")
	fs.Float64Var(&opt.Zipf, "zipf", opt.Zipf, "exponent s of the word distribution P(rank r) ∝ 1/r^s")
	fs.Float64Var(&opt.PlantRate, "plant", opt.PlantRate, "fraction of documents planted from an earlier original")
	fs.Float64Var(&opt.ExactShare, "exact", opt.ExactShare, "share of exact copies among planted documents")
	fs.Float64Var(&opt.ContainShare, "contain", opt.ContainShare, "share of containing documents among planted documents (the rest are edited copies)")
	fs.Float64Var(&opt.ContainExtra, "contain-extra", opt.ContainExtra, "a containing document adds up to this fraction of its source's length")
	fs.Float64Var(&opt.Insert, "ins", opt.Insert, "edited copies: per-word insertion rate")
	fs.Float64Var(&opt.Delete, "del", opt.Delete, "edited copies: per-word deletion rate")
	fs.Float64Var(&opt.Substitute, "sub", opt.Substitute, "edited copies: per-word substitution rate")
	verbose := fs.Bool("v", false, "print what was written and how fast on standard error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: the corpus goes to standard output", fs.Arg(0))
	}
	var err error
	if opt.Format, err = synth.ParseFormat(*format); err != nil {
		return err
	}
	var truth io.Writer
	var truthFile *os.File
	if *truthName != "" {
		if truthFile, err = os.Create(*truthName); err != nil {
			return err
		}
		truth = truthFile
	}
	start := time.Now()
	st, err := synth.Write(stdout, truth, opt)
	if truthFile != nil {
		if cerr := truthFile.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return err
	}
	if *verbose {
		secs := time.Since(start).Seconds()
		fmt.Fprintf(stderr, "gencorpus: %d documents (%d original, %d exact, %d edit, %d contain), %.1f MB in %.2f s: %.0f MB/s, %.0f documents/s\n",
			st.Docs, st.Kinds[synth.Original], st.Kinds[synth.Exact], st.Kinds[synth.Edit], st.Kinds[synth.Contain],
			float64(st.Bytes)/1e6, secs, float64(st.Bytes)/1e6/secs, float64(st.Docs)/secs)
	}
	return nil
}
