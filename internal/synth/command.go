package synth

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Main is the gencorpus command (internal/tools/gencorpus): it parses args
// (without the program name), writes the corpus to stdout and returns the exit
// status: 0, or 2 for bad usage, or 1 when a file could not be written.
func Main(args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.Is(err, syscall.EPIPE):
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if !ue.printed {
			fmt.Fprintln(stderr, "gencorpus:", err)
		}
		return 2
	}
	fmt.Fprintln(stderr, "gencorpus:", err)
	return 1
}

// usageError is a mistake in the command line; printed says whether the
// flag package has already reported it.
type usageError struct {
	error
	printed bool
}

func run(args []string, stdout, stderr io.Writer) error {
	opt := DefaultOptions()
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&opt.Docs, "n", opt.Docs, "number of documents, originals and planted")
	fs.Uint64Var(&opt.Seed, "seed", opt.Seed, "random seed: the same seed and flags give the same corpus")
	format := fs.String("format", "tsv", "output format: tsv (id TAB text) or jsonl ({\"id\":…,\"text\":…})")
	truthName := fs.String("truth", "", "write the ground truth (copy TAB source TAB kind) to `FILE`")
	fs.IntVar(&opt.MinWords, "min-words", opt.MinWords, "least number of words of an original")
	fs.IntVar(&opt.MaxWords, "max-words", opt.MaxWords, "largest number of words of an original")
	lengths := fs.String("lengths", "loguniform", "law of an original's length: loguniform (between -min-words and -max-words) or crawl (a crawl's pages: log-normal around -median-words, σ 0.7, and a heavy tail; clamped to the bounds)")
	fs.IntVar(&opt.MedianWords, "median-words", 400, "-lengths crawl: the median number of words of an original (400 words: about 2 KB)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "generate with `N` workers (the corpus is the same for any N)")
	output := fs.String("o", "", "write the corpus to `FILE` instead of standard output, compressed when its name ends in .zst or .gz")
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
			return err
		}
		return &usageError{err, true}
	}
	if fs.NArg() > 0 {
		return &usageError{fmt.Errorf("unexpected argument %q: the corpus goes to standard output", fs.Arg(0)), false}
	}
	var err error
	if opt.Format, err = ParseFormat(*format); err != nil {
		return &usageError{err, false}
	}
	if opt.Lengths, err = ParseLengths(*lengths); err != nil {
		return &usageError{err, false}
	}
	if err := opt.Check(); err != nil {
		return &usageError{err, false}
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
	w, closeOut := stdout, func() error { return nil }
	if *output != "" {
		if w, closeOut, err = create(*output); err != nil {
			return err
		}
	}
	st, err := WriteJobs(w, truth, opt, *jobs)
	if cerr := closeOut(); err == nil {
		err = cerr
	}
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
			st.Docs, st.Kinds[Original], st.Kinds[Exact], st.Kinds[Edit], st.Kinds[Contain],
			float64(st.Bytes)/1e6, secs, float64(st.Bytes)/1e6/secs, float64(st.Docs)/secs)
	}
	return nil
}

// create makes the file name, compressed with zstd or gzip when its name
// ends in .zst or .gz, and returns it with the function that finishes it.
func create(name string) (io.Writer, func() error, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	var z io.WriteCloser
	switch {
	case strings.HasSuffix(name, ".zst"):
		z, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	case strings.HasSuffix(name, ".gz"):
		z = gzip.NewWriter(f)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if z == nil {
		return f, f.Close, nil
	}
	return z, func() error {
		err := z.Close()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}
