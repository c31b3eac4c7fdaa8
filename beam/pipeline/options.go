package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/cluster"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/keep"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/pairs"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/sketch"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/token"
	"github.com/neardup/neardup/internal/verify"
)

// Outputs, in pipeline order: the records of each stage that can be
// written.
const (
	OutShingles   = "shingles"
	OutSketches   = "sketches"
	OutBands      = "bands"
	OutCandidates = "candidates"
	OutPairs      = "pairs"
	OutClusters   = "clusters"
)

// AllOutputs lists the outputs in pipeline order.
var AllOutputs = []string{OutShingles, OutSketches, OutBands, OutCandidates, OutPairs, OutClusters}

// The dedup outputs (dedup.go): the documents that keep --pairs writes, its
// rule (Options.Rule) applied to the verified pairs, and its report.
const (
	// OutKept is the documents kept, byte for byte (keep --pairs).
	OutKept = "kept"
	// OutDropped is the documents dropped (keep --pairs --drop).
	OutDropped = "dropped"
	// OutReport is a line per document dropped (keep --report).
	OutReport = "report"
)

// DedupOutputs lists the dedup outputs.
var DedupOutputs = []string{OutKept, OutDropped, OutReport}

// Options configure the pipeline. They are plain values, so that the
// transforms that carry them serialise to the workers; the stage options of
// the command line are made from them on each worker.
type Options struct {
	// Inputs are file patterns (globs, on any file system Beam knows: local
	// paths, gs://, s3://), read in the order given, the files of one
	// pattern in byte order of their names.
	Inputs []string
	// Reading is how the documents are read, as shingle reads them: its
	// Format "" (from each file's name), tsv, jsonl, lines or files; with
	// Number the ids are the documents' arrival numbers, NumberFrom for the
	// first line read, counted across all inputs (shingle --number-from):
	// what the dedup outputs need.
	input.Reading

	// Shingles: unit (char, word or stopword), k (0: the unit's default),
	// hash scheme (tok64 or xxh64), seed, and the text of a stop-word list
	// ("" is the built-in English one). Normalize is as shingle's
	// --normalize ("" is the unit's default).
	Unit      string
	K         int
	Hash      string
	Seed      uint64
	Stopwords string
	Normalize string

	// Sketches: minhash or oph, n values, seed.
	Method     string
	N          int
	SketchSeed uint64

	// Bands: B bands of R rows, or both 0 to choose them from Threshold
	// (FPWeight, FNWeight and RecallAtThreshold as band's flags).
	B, R               int
	Threshold          float64
	FPWeight, FNWeight float64
	RecallAtThreshold  float64

	// MaxBucket and Reps cap a bucket as pairs --max-bucket and --reps do.
	MaxBucket, Reps int
	// BBit sets aside the candidate pairs far below Threshold by their
	// documents' b-bit signatures, as band --bbit and pairs --bbit do
	// (bbit.go); the banding is then chosen from Threshold.
	BBit bool

	// VerifyThreshold and Containment as verify's --threshold and
	// --containment, with exact similarity from the shingle sets.
	VerifyThreshold float64
	Containment     bool

	// Rule is the rule of the dedup outputs, as keep --rule: arrival (a
	// document goes for any earlier near-duplicate, dedup.go) or kept
	// (only for a kept one, keptrule.go).
	Rule string

	// ComponentRounds is the number of rounds of label propagation before
	// the components left unsettled are finished on one worker, of pointer
	// jumping before the dedup report's kept documents left unsettled are,
	// and of the kept rule before the documents it left undecided are.
	ComponentRounds int

	// Output is the prefix of the files written: PREFIX-NAME-SSSSS-of-NNNNN.tsv
	// for each output NAME in Write and each of Shards shards (Path; the
	// documents kept and dropped have the extension of their format).
	Output string
	Write  []string
	Shards int

	NoHeader bool
	SkipBad  bool
}

// Defaults returns the options of the command-line pipeline's defaults.
func Defaults() Options {
	return Options{
		Reading: input.DefaultReading(),
		Unit:    "char", Hash: "tok64",
		Method: "minhash", N: 128,
		Threshold: 0.8, FPWeight: 0.5, FNWeight: 0.5, RecallAtThreshold: 0.995,
		VerifyThreshold: 0.8,
		Rule:            keep.RuleArrival,
		ComponentRounds: 8,
		MaxBucket:       pairs.DefaultMaxBucket,
		Reps:            pairs.DefaultReps,
		Write:           []string{OutPairs, OutClusters},
		Shards:          1,
	}
}

// Reads says whether the pipeline reads documents in format f: formats
// read line by line (Format.Line) and whole files.
func Reads(f *input.Format) bool { return f.Line != nil || f.Files }

// Check validates the options.
func (o *Options) Check() error {
	if len(o.Inputs) == 0 {
		return fmt.Errorf("no input: give at least one file pattern")
	}
	if o.Output == "" {
		return fmt.Errorf("no output prefix")
	}
	if f, ok := input.Lookup(o.Format); o.Format != input.FormatAuto && (!ok || !Reads(f)) {
		return fmt.Errorf("unknown format %q: want %s", o.Format, input.NamesOf(Reads))
	}
	if _, err := o.shingleOptions(); err != nil {
		return err
	}
	if o.Method != sketch.MinHash && o.Method != sketch.OPH {
		return fmt.Errorf("sketch method %q: the pipeline bands minhash or oph signatures", o.Method)
	}
	so := o.sketchOptions()
	if err := so.Resolve(); err != nil {
		return err
	}
	bo := o.bandOptions()
	if err := bo.Resolve(); err != nil {
		return err
	}
	if o.B != 0 || o.R != 0 {
		if err := (lsh.Banding{B: o.B, R: o.R}).Check(o.N); err != nil {
			return err
		}
	}
	po := o.pairsOptions()
	if err := po.Resolve(); err != nil {
		return err
	}
	if o.BBit && (o.B != 0 || o.R != 0) {
		return fmt.Errorf("-bbit sets aside the pairs far below the threshold the banding is chosen for: give -threshold, not -b and -r (pairs --bbit needs band --threshold)")
	}
	if o.VerifyThreshold < 0 || o.VerifyThreshold > 1 {
		return fmt.Errorf("verify threshold %g: want a similarity between 0 and 1", o.VerifyThreshold)
	}
	if o.ComponentRounds < 1 {
		return fmt.Errorf("component rounds %d: want at least 1", o.ComponentRounds)
	}
	if o.Shards < 1 {
		return fmt.Errorf("shards %d: want at least 1", o.Shards)
	}
	outputs := strings.Join(append(slices.Clone(AllOutputs), DedupOutputs...), ", ")
	if len(o.Write) == 0 {
		return fmt.Errorf("nothing to write: name at least one of %s", outputs)
	}
	for _, w := range o.Write {
		if !slices.Contains(AllOutputs, w) && !slices.Contains(DedupOutputs, w) {
			return fmt.Errorf("unknown output %q: want %s", w, outputs)
		}
	}
	if o.dedups() && !o.Number {
		return fmt.Errorf("the outputs %s apply keep --pairs's rule in arrival order, which needs ids that are arrival numbers: give a first number (-number-from 0), as examples/dedup.sh does", strings.Join(DedupOutputs, ", "))
	}
	switch o.Rule {
	case keep.RuleArrival:
	case keep.RuleKept:
		if !o.dedups() {
			return fmt.Errorf("rule %q is a rule of the outputs %s: write one of them", o.Rule, strings.Join(DedupOutputs, ", "))
		}
	default:
		return fmt.Errorf("rule %q: want %s or %s", o.Rule, keep.RuleArrival, keep.RuleKept)
	}
	return nil
}

// dedups reports whether a dedup output is asked for.
func (o *Options) dedups() bool {
	return slices.ContainsFunc(o.Write, func(w string) bool { return slices.Contains(DedupOutputs, w) })
}

// Banding returns the banding: B and R, or when both are 0 the choice of
// band --threshold for signatures of N values (then choice is not nil).
func (o *Options) Banding() (b lsh.Banding, choice *lsh.Choice) {
	if o.B != 0 || o.R != 0 {
		return lsh.Banding{B: o.B, R: o.R}, nil
	}
	c := lsh.ChooseBanding(o.N, o.Threshold, o.FPWeight, o.FNWeight, o.RecallAtThreshold)
	return c.Banding, &c
}

// writes reports whether an output is asked for.
func (o *Options) writes(out string) bool { return slices.Contains(o.Write, out) }

// needs reports whether the stage that makes out must run: it is written,
// or a later output is (the dedup outputs come after pairs).
func (o *Options) needs(out string) bool {
	i := slices.Index(AllOutputs, out)
	for _, w := range o.Write {
		j := slices.Index(AllOutputs, w)
		if slices.Contains(DedupOutputs, w) {
			j = slices.Index(AllOutputs, OutPairs)
		}
		if j >= i {
			return true
		}
	}
	return false
}

// shingleOptions are the options of the shingle stage.
func (o *Options) shingleOptions() (shingle.StageOptions, error) {
	unit, err := shingle.ParseUnit(o.Unit)
	if err != nil {
		return shingle.StageOptions{}, err
	}
	scheme, err := shingle.ParseScheme(o.Hash)
	if err != nil {
		return shingle.StageOptions{}, err
	}
	k := o.K
	if k == 0 {
		k = shingle.DefaultK(unit)
	}
	if k < 1 {
		return shingle.StageOptions{}, fmt.Errorf("k %d: want at least 1", k)
	}
	norm := shingle.DefaultNormalization(unit)
	if o.Normalize != "" {
		if norm, err = token.ParseNormalization(o.Normalize); err != nil {
			return shingle.StageOptions{}, err
		}
	}
	so := shingle.StageOptions{
		Shingle: shingle.Options{Unit: unit, K: k, Scheme: scheme, Seed: o.Seed, Norm: norm},
		Reading: o.Reading,
		Common:  stream.Common{SkipBad: o.SkipBad},
	}
	if o.Stopwords != "" {
		if unit != shingle.Stopword {
			return shingle.StageOptions{}, fmt.Errorf("a stop-word list is for the stopword unit")
		}
		sw, err := shingle.ReadStopwords(strings.NewReader(o.Stopwords))
		if err != nil {
			return shingle.StageOptions{}, fmt.Errorf("stop words: %v", err)
		}
		so.Shingle.Stopwords = sw
	}
	if err := so.Resolve(); err != nil {
		return shingle.StageOptions{}, err
	}
	return so, nil
}

// bandOptions are the options of the band stage: the threshold only when
// it chooses the banding, as band's -b and -r without --threshold.
func (o *Options) bandOptions() band.Options {
	bo := band.Options{B: o.B, R: o.R, FPWeight: o.FPWeight, FNWeight: o.FNWeight, Floor: o.RecallAtThreshold}
	if o.B == 0 && o.R == 0 {
		bo.Threshold = o.Threshold
	}
	return bo
}

// pairsOptions are the options of the pairs stage.
func (o *Options) pairsOptions() pairs.Options {
	po := pairs.Options{MaxBucket: o.MaxBucket, Reps: o.Reps}
	if o.BBit {
		po.BBit = bbitName
	}
	return po
}

func (o *Options) sketchOptions() sketch.Options {
	return sketch.Options{Method: o.Method, N: o.N, Seed: o.SketchSeed}
}

// headers returns the header lines of each stage, in pipeline order, as the
// command-line stages write them. Check must have succeeded.
func (o *Options) headers() map[string]record.Header {
	so, _ := o.shingleOptions()
	if files, ok := localInputs(o.Inputs); ok {
		so.Bind(files)
	}
	sko := o.sketchOptions()
	po := o.pairsOptions()
	co := cluster.Options{Method: cluster.Components}
	banding, _ := o.Banding()
	return map[string]record.Header{
		OutShingles:   so.Header(),
		OutSketches:   sko.Header(),
		OutBands:      band.Header(banding, o.bandOptions().Threshold),
		OutCandidates: po.Header(),
		OutPairs:      verify.Header(verify.MeasureExact, o.VerifyThreshold, o.Containment),
		OutClusters:   co.Header(),
	}
}

// localInputs returns the files the patterns match, in the order listFn
// reads them (the patterns in order, each one's files in byte order), when
// every pattern is on the local file system: the numbered shingle header
// binds them (inputs=), as the command line's does. Patterns of other file
// systems are not fingerprinted: the header then has no inputs=, and the
// stages that read the documents by number check nothing.
func localInputs(patterns []string) ([]string, bool) {
	var files []string
	for _, p := range patterns {
		if strings.Contains(p, "://") {
			return nil, false
		}
		names, err := filepath.Glob(p)
		if err != nil || len(names) == 0 {
			return nil, false
		}
		slices.Sort(names)
		files = append(files, names...)
	}
	return files, true
}
