// Command neardup-beam runs neardup's MinHash pipeline
//
//	shingle | sketch | band | pairs | verify | cluster --method components
//
// as an Apache Beam pipeline: locally on the Prism runner (the default), or
// on Dataflow, Flink or Spark with Beam's runner flags. It runs the code of
// the command-line stages and writes records in their format; the output,
// sorted, is the command-line pipeline's output sorted. With arrival-number
// ids (-number-from N) it also writes what examples/dedup.sh writes, keep
// --pairs's deduplicated documents and report (-write kept,dropped,report),
// by its arrival or kept rule (-rule).
//
// Usage:
//
//	neardup-beam [flags] -output PREFIX PATTERN...
//
// Each PATTERN is a file or a glob, local or on a file system Beam knows
// (gs://, s3://); the files of a pattern are read in byte order of their
// names, the patterns in the order given. Outputs are written as
// PREFIX-NAME-SSSSS-of-NNNNN.tsv for each NAME of -write (shingles,
// sketches, bands, candidates, pairs, clusters) and each of -shards shards,
// every shard sorted bytewise and headed by the #neardup header lines. The
// dedup outputs kept, dropped (the documents, byte for byte, with the
// extension of their format) and report are in shards of ranges of
// arrival: their concatenation in shard order (cat PREFIX-kept-*) is what
// keep writes.
//
// Exit status: 0 success; 1 the pipeline failed (a bad input line is
// reported as file:line: what is wrong); 2 bad usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/neardup/neardup/beam/pipeline"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/lsh"
)

// patterns is a repeatable flag.
type patterns []string

func (p *patterns) String() string     { return strings.Join(*p, ",") }
func (p *patterns) Set(v string) error { *p = append(*p, v); return nil }

const usage = `Usage: neardup-beam [flags] -output PREFIX PATTERN...

Runs shingle | sketch | band | pairs | verify | cluster --method components
as an Apache Beam pipeline, on Prism (the default, in this process) or on
Dataflow, Flink or Spark (--runner). With -number-from N (arrival numbers)
-write can name kept, dropped and report: examples/dedup.sh's job, keep
--pairs --rule RULE's output byte for byte, in shards to concatenate.

Examples:
  neardup-beam -number-from 0 -method oph -bbit -write kept,report -output out/dedup corpus-*.jsonl.zst
  cat out/dedup-kept-*-of-00001.jsonl > deduplicated.jsonl
  neardup-beam --runner=dataflow --project=P --region=europe-west1 \
      --temp_location=gs://B/tmp -shards 64 -output gs://B/out/run 'gs://B/corpus/*.jsonl.gz'

Flags (each in full: neardup-beam -help-flags; the Beam runner's follow):
`

func main() {
	os.Exit(run())
}

func run() int {
	opt := pipeline.Defaults()
	var inputs patterns
	var write, stopwords, metrics string
	verifyThreshold := -1.0
	numberFrom := int64(-1)
	flag.Var(&inputs, "input", "input file `PATTERN` (repeatable; also as arguments)")
	flag.StringVar(&opt.Output, "output", "", "`PREFIX` of the files written (local, gs://, s3://)")
	flag.StringVar(&write, "write", strings.Join(opt.Write, ","), "outputs to write: shingles, sketches, bands, candidates, pairs, clusters; with -number-from also kept, dropped, report (keep --pairs)")
	flag.IntVar(&opt.Shards, "shards", opt.Shards, "shards per output; each is sorted in one worker's memory")
	flag.StringVar(&opt.Format, "format", "", "document format: "+input.NamesOf(pipeline.Reads)+" (default: from each file name, as shingle)")
	flag.StringVar(&opt.IDField, "id-field", opt.IDField, "JSON Lines: the id field")
	flag.StringVar(&opt.TextField, "text-field", opt.TextField, "JSON Lines: the text field")
	flag.Int64Var(&numberFrom, "number-from", -1, "the ids are the documents' arrival numbers, `N` for the first line read (counted across all inputs), as shingle --number-from (default: the documents' own ids)")
	flag.StringVar(&opt.Unit, "unit", opt.Unit, "shingle unit: char, word or stopword")
	flag.StringVar(&opt.Normalize, "normalize", "", "shingle normalization: none, width, punct or width,punct (default: the unit's, as shingle's)")
	flag.IntVar(&opt.K, "k", 0, "shingle length (default 9 chars, 5 words, 3 from a stop word)")
	flag.StringVar(&opt.Hash, "hash", opt.Hash, "shingle hash: tok64 or xxh64")
	flag.Uint64Var(&opt.Seed, "seed", 0, "shingle hash seed (shingle --seed)")
	flag.StringVar(&stopwords, "stopwords", "", "stop-word list `FILE` for -unit stopword (default: the built-in English list)")
	flag.StringVar(&opt.Method, "method", opt.Method, "sketch method: minhash or oph")
	flag.IntVar(&opt.N, "n", opt.N, "signature length")
	flag.Uint64Var(&opt.SketchSeed, "sketch-seed", 0, "seed of the MinHash functions (sketch --seed)")
	flag.IntVar(&opt.B, "b", 0, "bands (with -r; default: chosen from -threshold)")
	flag.IntVar(&opt.R, "r", 0, "rows per band")
	flag.Float64Var(&opt.Threshold, "threshold", opt.Threshold, "target Jaccard similarity of the banding (band --threshold)")
	flag.Float64Var(&opt.FPWeight, "fp-weight", opt.FPWeight, "weight of false positives in the choice of the banding")
	flag.Float64Var(&opt.FNWeight, "fn-weight", opt.FNWeight, "weight of false negatives in the choice of the banding")
	flag.Float64Var(&opt.RecallAtThreshold, "recall-at-threshold", opt.RecallAtThreshold, "least probability that a pair at the threshold becomes a candidate")
	flag.IntVar(&opt.MaxBucket, "max-bucket", opt.MaxBucket, "pair a bucket of more than N ids as pairs --max-bucket does: its first N whole, the others with its -reps smallest ids (0: no cap)")
	flag.IntVar(&opt.Reps, "reps", opt.Reps, "the smallest ids a capped bucket's later ids are paired with (pairs --reps)")
	flag.BoolVar(&opt.BBit, "bbit", false, "set aside the candidates far below -threshold by their documents' 4-bit signatures before they are verified, as band --bbit and pairs --bbit do (examples/dedup.sh does)")
	flag.Float64Var(&verifyThreshold, "verify-threshold", -1, "least exact Jaccard similarity of a pair written; negative: the same as -threshold")
	flag.BoolVar(&opt.Containment, "containment", false, "add containment both ways; keep pairs where either reaches the verify threshold")
	flag.StringVar(&opt.Rule, "rule", opt.Rule, "the rule of kept, dropped and report, as keep --rule: arrival (dropped for any earlier near-duplicate) or kept (only for a kept one)")
	flag.IntVar(&opt.ComponentRounds, "component-rounds", opt.ComponentRounds, "rounds of label propagation (of pointer jumping for the report's kept documents; of the kept rule) before what is left is finished on one worker")
	flag.BoolVar(&opt.NoHeader, "no-header", false, "leave out the #neardup header lines")
	flag.BoolVar(&opt.SkipBad, "skip-bad", false, "skip malformed lines and count them (counter neardup/shingle-skipped) instead of failing")
	flag.StringVar(&metrics, "metrics", "", "write each collection's elements and bytes (Beam's sampled sizes) to `FILE`, a TSV line each: collection, elements, bytes, largest element's bytes")
	flag.StringVar(&beamlog.LogLevel, "beam-log-level", "warn", "level of the Beam SDK's and Prism's log on standard error: debug, info, warn or error")
	helpFlags := flag.Bool("help-flags", false, "print each flag with its whole description, and exit")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		printOwnFlags(flag.CommandLine.Output(), false)
	}
	flag.Parse()
	if *helpFlags {
		printOwnFlags(os.Stdout, true)
		return 0
	}
	// A worker started by the runner runs the same binary with its own
	// flags: Init serves it and does not return.
	beam.Init()

	for _, a := range flag.Args() {
		if len(a) > 1 && a[0] == '-' {
			fmt.Fprintf(os.Stderr, "neardup-beam: %s given after the input patterns: flags come first\nRun 'neardup-beam -help' for usage.\n", a)
			return 2
		}
	}

	flag.Visit(func(f *flag.Flag) {
		if f.Name == "number-from" {
			opt.Number, opt.NumberFrom = true, numberFrom
		}
	})
	opt.Inputs = append(inputs, flag.Args()...)
	opt.Write = strings.Split(write, ",")
	opt.VerifyThreshold = verifyThreshold
	if verifyThreshold < 0 {
		opt.VerifyThreshold = opt.Threshold
	}
	if stopwords != "" {
		data, err := os.ReadFile(stopwords)
		if err != nil {
			fmt.Fprintf(os.Stderr, "neardup-beam: %v\n", err)
			return 2
		}
		opt.Stopwords = string(data)
	}
	if err := opt.Check(); err != nil {
		fmt.Fprintf(os.Stderr, "neardup-beam: %v\nRun 'neardup-beam -help' for usage.\n", err)
		return 2
	}
	if b, c := opt.Banding(); c != nil {
		fmt.Fprintf(os.Stderr, "neardup-beam: threshold %.3g, %d-value signatures: %d bands of %d rows; S-curve threshold %.3f; a pair at %.3g becomes a candidate with probability %.4f\n",
			opt.Threshold, opt.N, b.B, b.R, lsh.Threshold(b.B, b.R), opt.Threshold, c.AtThreshold)
	}

	p, s := beam.NewPipelineWithRoot()
	if _, err := pipeline.Build(s, opt); err != nil {
		fmt.Fprintf(os.Stderr, "neardup-beam: %v\n", err)
		return 2
	}
	res, err := beamx.RunWithMetrics(context.Background(), p)
	if err != nil {
		fmt.Fprintf(os.Stderr, "neardup-beam: %s\n", cause(err))
		return 1
	}
	if res != nil {
		printCounters(os.Stderr, res)
		if metrics != "" {
			if err := writeMetrics(metrics, res); err != nil {
				fmt.Fprintf(os.Stderr, "neardup-beam: %v\n", err)
				return 1
			}
		}
	}
	for _, o := range append(slices.Clone(pipeline.AllOutputs), pipeline.DedupOutputs...) {
		if slices.Contains(opt.Write, o) {
			fmt.Fprintf(os.Stderr, "neardup-beam: wrote %s\n", opt.Glob(o))
		}
	}
	return 0
}

// ownFlags are neardup's flags, listed by -help without the many that the
// Beam packages register.
var ownFlags = []string{"input", "output", "write", "shards", "format", "id-field", "text-field", "number-from",
	"unit", "k", "hash", "seed", "stopwords", "method", "n", "sketch-seed",
	"b", "r", "threshold", "fp-weight", "fn-weight", "recall-at-threshold", "max-bucket", "reps", "bbit",
	"verify-threshold", "containment", "rule", "component-rounds", "no-header", "skip-bad", "metrics", "beam-log-level"}

// printOwnFlags prints neardup-beam's flags: in full, as the flag package
// does, or a line each, its description cut to the width of a terminal.
func printOwnFlags(w io.Writer, full bool) {
	own := flag.NewFlagSet("neardup-beam", flag.ContinueOnError)
	for _, name := range ownFlags {
		f := flag.Lookup(name)
		own.Var(f.Value, f.Name, f.Usage)
	}
	own.SetOutput(w)
	if full {
		own.PrintDefaults()
		return
	}
	own.VisitAll(func(f *flag.Flag) {
		arg, desc := flag.UnquoteUsage(f)
		line := fmt.Sprintf("  -%s %s", f.Name, arg)
		line = fmt.Sprintf("%-24s %s", strings.TrimSpace(line), desc)
		if r := []rune(line); len(r) > 79 {
			line = string(r[:78]) + "…"
		}
		fmt.Fprintln(w, "  "+strings.TrimPrefix(line, "  "))
	})
	fmt.Fprintln(w, `Beam's: --runner=prism|dataflow|flink|spark|universal, --endpoint, --project,
--region, --environment_type, --environment_config, --temp_location, …`)
}

// cause returns the message of the DoFn that failed, without the plan of
// the bundle that the runner wraps around it.
func cause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, " failed:\n"); i >= 0 {
		msg = msg[i+len(" failed:\n"):]
	}
	return strings.TrimSpace(msg)
}

// printCounters prints neardup's counters: skipped lines, empty documents,
// capped buckets, unsettled component edges, documents kept and dropped.
func printCounters(w io.Writer, res beam.PipelineResult) {
	totals := map[string]int64{}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Namespace() == "neardup" {
			totals[c.Name()] += c.Result()
		}
	}
	names := make([]string, 0, len(totals))
	for n := range totals {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "neardup-beam: %s: %d\n", n, totals[n])
	}
}

// writeMetrics writes the runner's metrics of each collection to a file:
// its name (the transform and output that make it), the elements it held,
// their bytes encoded and the largest element's. The runner measures the
// size of a sample of the elements: bytes are the elements times the
// sample's mean, the largest is the sample's. The collections going into
// a grouping (names with _inject) are what it shuffles.
func writeMetrics(name string, res beam.PipelineResult) error {
	var lines []string
	for _, c := range res.Metrics().AllMetrics().PCols() {
		v := c.Result()
		var bytes int64
		if s := v.SampledByteSize; s.Count > 0 {
			bytes = int64(float64(v.ElementCount) * float64(s.Sum) / float64(s.Count))
		}
		lines = append(lines, fmt.Sprintf("%s\t%d\t%d\t%d\n", c.Transform(), v.ElementCount, bytes, v.SampledByteSize.Max))
	}
	sort.Strings(lines)
	return os.WriteFile(name, []byte(strings.Join(lines, "")), 0o644)
}
