// Package verify is the verify stage: it reads candidate pairs and writes
// those whose similarity reaches a threshold, with the similarity: exact
// Jaccard (and containment) computed from shingle sets, or the estimate of
// sketches, or the exact cosine of the documents' vectors; or those whose
// SimHash fingerprints are within a Hamming distance, with the distance.
package verify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/shingle"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
)

// Options configure the stage.
type Options struct {
	// Shingles names a shingle file for exact similarity; Sketches a sketch
	// file for estimates; Documents the documents themselves, shingled again
	// as the pairs' shingle header says, for exact similarity. Exactly one
	// is given.
	Shingles, Sketches string
	Documents          *DocumentOptions
	Threshold          float64
	// ThresholdFromBand takes the threshold from the pairs' band header,
	// when it has one (band chose its banding for it), instead of
	// Threshold: verify was not given --threshold.
	ThresholdFromBand bool
	// Containment adds c(A,B) and c(B,A) and keeps a pair when either
	// reaches the threshold.
	Containment bool
	// Hamming scores pairs by the Hamming distance of the SimHash
	// fingerprints in Sketches and keeps those within MaxDistance bits
	// (hamming.go).
	Hamming     bool
	MaxDistance int
	// Cosine scores pairs by the exact cosine similarity of the vectors
	// of the documents (Documents, with VectorField; cosine.go).
	Cosine bool
	// Euclidean keeps the pairs whose vectors are within Threshold, a
	// distance, of each other (euclidean.go).
	Euclidean bool

	// Attach and Sorted are the two steps of the join over sorted files
	// (join.go), which holds neither the pairs nor the file in memory.
	// Attach reads pairs sorted by their first id, and the file sorted by
	// id, and writes attached pairs; Sorted reads attached pairs sorted by
	// their first field, and the file, and writes scored pairs.
	Attach, Sorted bool

	// MemoryBytes bounds the candidate pairs read ahead to learn which
	// documents to load; past it every document of the file is loaded.
	// With Documents (not one file a document) it bounds what verify
	// holds: the pairs (in parts of up to half of it) and the shingle sets
	// of the documents held in a pass (docpass.go). 0 is stream's default
	// (Resolve); --attach and --sorted hold no pairs and take none.
	MemoryBytes int64
	// TempDir holds the scratch file of verify --documents ("": the
	// system's temporary directory).
	TempDir string
	// BBit, with Documents, is a file of b-bit signatures (band --bbit)
	// by which the pairs far below the threshold are set aside (bbit.go).
	BBit string
	// HoldLimit, when not nil, is given the bound of what verify
	// --documents holds before it holds it: the command line sets the
	// process's soft memory limit to it (library code leaves the
	// process's collector alone).
	HoldLimit func(bytes int64)

	stream.Common
}

// Resolve checks the options and fills in their defaults (-j, --memory),
// the one place where both are done: Run calls it, so the command line
// goes through it. Its errors are usage errors.
func (o *Options) Resolve() error {
	if err := status.Finite(status.Float{Flag: "--threshold", Value: o.Threshold}); err != nil {
		return err
	}
	if (o.Attach || o.Sorted) && o.MemoryBytes != 0 {
		return status.Usagef("--memory sets the read-ahead of verify without --attach or --sorted, which hold no pairs")
	}
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	o.MemoryBytes = stream.Memory(o.MemoryBytes)
	if o.Attach && o.Sorted {
		return status.Usagef("--attach and --sorted are the two steps of one join, with a sort between them: give one")
	}
	if o.Hamming {
		if o.Attach || o.Sorted {
			return status.Usagef("--hamming needs only the fingerprints of each pair: verify --hamming holds them, never --attach or --sorted")
		}
		if o.Sketches == "" || o.Shingles != "" || o.Containment {
			return status.Usagef("--hamming scores SimHash fingerprints: give --sketches FILE, without --shingles or --containment")
		}
		// Within 128 bits of a 128-bit fingerprint is every pair.
		if o.MaxDistance < 0 || o.MaxDistance > 127 {
			return status.Usagef("--hamming %d: want a distance of 0 to 127 bits (fewer than the fingerprint has)", o.MaxDistance)
		}
	}
	if o.Cosine && o.Euclidean {
		return status.Usagef("--cosine and --euclidean are two measures: give one")
	}
	if o.Cosine || o.Euclidean {
		if err := o.checkCosine(); err != nil {
			return err
		}
	} else if o.Documents != nil && (o.Documents.VectorField != "" || o.Documents.Dim != 0) {
		return status.Usagef("--vector-field and --dim name the vectors of verify --cosine and --euclidean")
	}
	if o.Euclidean {
		return o.checkEuclidean()
	}
	if o.Documents != nil {
		if o.Shingles != "" || o.Sketches != "" || o.Hamming || o.Attach || o.Sorted {
			return status.Usagef("--documents scores pairs from the documents themselves: give it without --shingles, --sketches, --hamming, --attach or --sorted")
		}
	} else if o.BBit != "" {
		return status.Usagef("--bbit sets pairs aside before verify --documents reads the documents: give it with --documents")
	} else if (o.Shingles == "") == (o.Sketches == "") {
		return status.Usagef("give --shingles FILE (exact), --documents FILE (exact, shingled again) or --sketches FILE (estimate)")
	}
	if !(o.Threshold >= 0 && o.Threshold <= 1) {
		return status.Usagef("--threshold %g: want a similarity between 0 and 1", o.Threshold)
	}
	return nil
}

// doc is what a measure scores: a document's shingle hashes (ascending)
// or sketch values, and the size recorded with them.
type doc struct {
	values []uint64
	size   uint64
}

// measure computes the scores of a pair of documents.
type measure interface {
	// score returns Jaccard (or its estimate) and, when containment is
	// known, c(A,B) and c(B,A).
	score(a, b doc) (j, cab, cba float64)
	name() string
}

// exact scores shingle sets; a pair that cannot reach opt's threshold
// stops being counted once that is certain (see need).
type exact struct{ opt *Options }

func (exact) name() string { return MeasureExact }

func (e exact) score(a, b doc) (float64, float64, float64) {
	nx, ny := len(a.values), len(b.values)
	return scoreCounts(intersectAtLeast(a.values, b.values, need(nx, ny, e.opt.Threshold, e.opt.Containment)), nx, ny)
}

// Exact returns the Jaccard similarity of two ascending sets and their
// containments c(A,B) = |A∩B|/|A| and c(B,A). The Beam pipeline scores its
// pairs with it too.
func Exact(x, y []uint64) (j, cab, cba float64) {
	return scoreCounts(intersect(x, y), len(x), len(y))
}

// need returns a count of common values that two sets of nx and ny values
// must reach to be written at threshold: with fewer, their Jaccard (and,
// with containment, each containment) is below it. It is one below the
// bound, so that no rounding of a score reaches the threshold from under
// it.
func need(nx, ny int, threshold float64, containment bool) int {
	if threshold <= 0 {
		return 0
	}
	n := threshold * float64(nx+ny) / (1 + threshold)
	if containment {
		n = min(n, threshold*float64(min(nx, ny)))
	}
	return int(n) - 1
}

// intersectAtLeast counts the values common to two ascending lists when
// they have at least need of them, and otherwise returns a count below
// need: the count stops once more values went unmatched than a common
// part of need leaves. Pairs below the threshold, most of the candidates
// of a dedup, stop early.
func intersectAtLeast(a, b []uint64, need int) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	if need > len(a) {
		return 0
	}
	// Unmatched so far, i+j-2n, never falls; with need in common it ends
	// at most at slack (with need 0 or less it is never passed).
	slack := len(a) + len(b) - 2*max(need, 0)
	n, i, j := intersectRun(a, b, slack)
	if i+j-2*n > slack {
		return n
	}
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		if x == y {
			n++
			i++
			j++
			continue
		}
		if x < y {
			i++
		} else {
			j++
		}
		if i+j-2*n > slack {
			return n
		}
	}
	return n
}

// intersect counts the values common to two ascending lists.
func intersect(a, b []uint64) int { return intersectAtLeast(a, b, 0) }

type signatures struct{}

func (signatures) name() string { return "minhash-estimate" }

func (signatures) score(a, b doc) (float64, float64, float64) {
	if a.size == 0 || b.size == 0 {
		// Two empty sets agree everywhere, but share nothing: 0, as
		// their exact Jaccard similarity is taken to be.
		return 0, -1, -1
	}
	return minhash.Similarity(a.values, b.values), -1, -1
}

type bottomK struct{ k int }

func (bottomK) name() string { return "bottomk-estimate" }

func (m bottomK) score(a, b doc) (float64, float64, float64) {
	return minhash.BottomKResemblance(a.values, b.values, m.k), -1, -1
}

type modM struct{}

func (modM) name() string { return "modm-estimate" }

func (modM) score(a, b doc) (float64, float64, float64) {
	x, y := a.values, b.values
	return minhash.ModMResemblance(x, y), minhash.ModMContainment(x, y), minhash.ModMContainment(y, x)
}

// sketchMeasure returns the estimate for the sketches of a file with the
// given headers.
func sketchMeasure(file string, headers []stream.HeaderAt, containment bool) (measure, error) {
	method, k := "minhash", 0
	for _, h := range headers {
		if h.Header.Stage == "sketch" {
			method, _ = h.Header.Get("method")
			k = h.Header.Int("s", 0)
		}
	}
	var m measure
	switch method {
	case "minhash", "oph":
		m = signatures{}
	case "bottomk":
		m = bottomK{k}
	case "modm":
		m = modM{}
	default:
		return nil, fmt.Errorf("%s: verify can't estimate from %s sketches", file, method)
	}
	if containment && method != "modm" {
		return nil, fmt.Errorf("--containment needs --shingles, or --sketches made by sketch --method modm (the file holds %s sketches)", method)
	}
	return m, nil
}

// Run reads candidate pairs and writes scored pairs.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	switch {
	case opt.Hamming:
		return runHamming(ctx, opt, inputs, stdout, stderr)
	case opt.Cosine, opt.Euclidean:
		return runCosine(ctx, opt, inputs, stdout, stderr)
	case opt.Attach:
		return runAttach(ctx, opt, inputs, stdout, stderr)
	case opt.Sorted:
		return runSorted(ctx, opt, inputs, stdout, stderr)
	}
	// The writer needs the stage's header, which names the measure; the
	// measure is known once the file is loaded, so the writer is made with
	// a header filled in afterwards.
	out := stream.NewOutput("verify", opt.Common, stdout, stderr)
	w := out.W
	var m measure
	lines := stream.NewLines(inputs)
	src := newReadAhead(lines, opt.MemoryBytes)
	defer src.Close()
	// Attached pairs are refused before the file is loaded (by the
	// writer, as every stage refuses them).
	peeked, first, err := lines.Peek()
	if err != nil {
		return err
	}
	if len(peeked) == 0 && first == nil {
		// An empty input (pairs of an empty corpus, which writes no
		// header either): an empty output, as every stage gives.
		return out.Finish()
	}
	for _, h := range peeked {
		if h.Header.Stage == record.AttachStage {
			return w.Header(h.Header, h.Pos)
		}
	}
	if err := bandThreshold(&opt, peeked, stderr); err != nil {
		return err
	}
	var so shingle.Options
	if opt.Documents != nil {
		if so, err = shingleOptions(peeked, opt.Documents.Stopwords); err != nil {
			return err
		}
		if err := opt.Documents.resolveReading(peeked, stderr); err != nil {
			return err
		}
		if opt.Documents.Format != input.FormatFiles {
			var bb *bbit.File
			if opt.BBit != "" {
				if bb, err = openBBit(opt.BBit, peeked); err != nil {
					return err
				}
			}
			w.SetOwn(Header(MeasureExact, opt.Threshold, opt.Containment))
			return runDocuments(ctx, &opt, so, bb, lines, out, stderr)
		}
		if opt.BBit != "" {
			return &usageError{"--bbit works with documents read in order (JSON Lines, TSV, lines), not with --files"}
		}
	}
	if err := src.fill(ctx); err != nil {
		return err
	}
	needed := src.needed()
	var st *store.Store
	switch {
	case opt.Documents != nil:
		if st, err = loadDocuments(ctx, &opt, so, needed, stderr); err != nil {
			return err
		}
		m = exact{&opt}
	case opt.Shingles != "":
		s, _, err := load(ctx, opt.Shingles, false, needed, &opt, w, out)
		if err != nil {
			return err
		}
		st, m = s, exact{&opt}
	default:
		s, headers, err := load(ctx, opt.Sketches, true, needed, &opt, w, out)
		if err != nil {
			return err
		}
		st = s
		if m, err = sketchMeasure(opt.Sketches, headers, opt.Containment); err != nil {
			return err
		}
	}
	w.SetOwn(Header(m.name(), opt.Threshold, opt.Containment))
	return out.RunPool(ctx, src, func() stream.Worker { return &worker{opt: &opt, m: m, st: st} })
}

// bandThreshold sets opt.Threshold to the threshold of the band header
// among headers, when opt.ThresholdFromBand and there is one, and says so on
// stderr.
func bandThreshold(opt *Options, headers []stream.HeaderAt, stderr io.Writer) error {
	for _, h := range headers {
		if s, _ := h.Header.Get(record.SchemeKey); h.Header.Stage == "band" && s == record.SchemeContainment && !opt.Containment {
			return record.Errorf(h.Pos, "the pairs are candidates for containment (band --containment): give verify --containment, or the pairs contained one way would be scored by Jaccard only")
		}
	}
	if !opt.ThresholdFromBand {
		return nil
	}
	for _, h := range headers {
		if h.Header.Stage != "band" {
			continue
		}
		key := record.ThresholdKey
		if s, _ := h.Header.Get(record.SchemeKey); s == record.SchemeContainment {
			key = record.ContainmentKey
		}
		v, ok := h.Header.Get(key)
		if !ok {
			return nil
		}
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || !(t > 0 && t <= 1) {
			return record.Errorf(h.Pos, "band's header has %s=%s: want a similarity above 0 and at most 1", key, v)
		}
		opt.Threshold = t
		fmt.Fprintf(stderr, "verify: threshold %g from band's header\n", t)
		return nil
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type worker struct {
	opt *Options
	m   measure
	st  *store.Store
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		a, b, ia, ib, err := lookupPair(line, w.st, w.source())
		if err != nil {
			return err
		}
		j, cab, cba := w.m.score(doc{w.st.Values(ia), w.st.Size(ia)}, doc{w.st.Values(ib), w.st.Size(ib)})
		r.Out = AppendScored(r.Out, a, b, j, cab, cba, w.opt.Threshold, w.opt.Containment)
		return nil
	})
}

// lookupPair parses a candidate pair, puts its ids in order (a < b) and
// finds both documents in st, whose source names it in messages.
func lookupPair(line []byte, st *store.Store, source string) (a, b []byte, ia, ib int, err error) {
	a, b, err = record.ParsePair(line)
	if err != nil {
		return
	}
	switch bytes.Compare(a, b) {
	case 0:
		return nil, nil, 0, 0, record.Bad("a pair of %s with itself", a)
	case 1:
		a, b = b, a
	}
	var ok bool
	if ia, ok = st.Lookup(a); !ok {
		return nil, nil, 0, 0, record.Bad("id %s is not in %s", a, source)
	}
	if ib, ok = st.Lookup(b); !ok {
		return nil, nil, 0, 0, record.Bad("id %s is not in %s", b, source)
	}
	return a, b, ia, ib, nil
}

// Header returns the stage's header line.
func Header(measure string, threshold float64, containment bool) record.Header {
	return record.NewHeader("verify",
		"measure", measure,
		"threshold", strconv.FormatFloat(threshold, 'g', -1, 64),
		"containment", yesNo(containment))
}

// MeasureExact names the exact Jaccard measure in the header.
const MeasureExact = "jaccard"

// AppendScored appends the scored pair record of a and b (a < b) when its
// Jaccard similarity j, or with containment either containment, reaches
// threshold; otherwise it returns dst unchanged. Scores have 6 decimals.
func AppendScored(dst, a, b []byte, j, cab, cba, threshold float64, containment bool) []byte {
	if !above(j, cab, cba, threshold, containment) {
		return dst
	}
	return record.AppendScored(dst, a, b, j, cab, cba, containment)
}

// above says whether a pair of Jaccard similarity j and containments cab
// and cba is written (AppendScored).
func above(j, cab, cba, threshold float64, containment bool) bool {
	return j >= threshold || containment && (cab >= threshold || cba >= threshold)
}

func (w *worker) source() string {
	switch {
	case w.opt.Shingles != "":
		return w.opt.Shingles
	case w.opt.Documents != nil:
		return "the documents (" + strings.Join(w.opt.Documents.Paths, " ") + ")"
	}
	return w.opt.Sketches
}
