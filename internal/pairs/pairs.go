// Package pairs is the pairs stage: it groups band records "key TAB id" by
// key and writes every pair of ids that share a key once, as "idA TAB idB"
// with idA < idB bytewise, sorted. A bucket of more than MaxBucket ids is
// paired against its Reps smallest ids only (capPairs).
//
// By default it holds the records within MemoryBytes (52 bytes per band
// record, each distinct id once, 8 bytes per candidate pair) and past it
// spills them to sorted runs merged a bucket at a time (spill.go). With Sorted it reads
// key-sorted input (LC_ALL=C sort -t$'\t' -k1,1) one bucket at a time and
// holds only the largest bucket plus a buffer of pairs that spills to
// sorted runs on disk, merged at the end.
package pairs

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	bandpkg "github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Options configure the stage.
type Options struct {
	// MaxBucket caps a bucket: in a bucket of more ids, the Reps smallest
	// (its representatives; at most MaxBucket) are paired with each other
	// and every other id with each of them only. 0 means no cap: all
	// pairs.
	MaxBucket int
	// Reps is the representatives of a capped bucket; 0 means MaxBucket.
	Reps int
	// Sorted streams key-sorted input.
	Sorted bool
	// MemoryBytes bounds what the default mode holds, and the pair buffer
	// of the sorted mode and of containment keys, before they spill to
	// disk; 0 is stream's default (Resolve).
	MemoryBytes int64
	// TempDir holds spilled runs ("" is the system's).
	TempDir string

	stream.Common

	// Hamming gives the Hamming scheme of band records that have no band
	// header (hamming.go); a header with scheme=hamming gives it otherwise.
	Hamming *lsh.HammingOptions

	// Against names a band index (bandindex) that the input, a batch of
	// new band records, is paired with (against.go).
	Against string

	// MaxBucketSet and RepsSet say MaxBucket and Reps were given, not the
	// defaults: containment keys, which are never capped, refuse them
	// (contain.go).
	MaxBucketSet, RepsSet bool

	// BBit names the b-bit signatures of band --bbit: the pairs far below
	// band's threshold by them are not kept (bbit.go).
	BBit string
	// HoldLimit, when not nil, is given the bound of what the default
	// mode holds before it holds it: the command line sets the process's
	// soft memory limit to it (library code leaves the process's
	// collector alone).
	HoldLimit func(bytes int64)

	// aside judges the pairs with BBit.
	aside *setAside
	// copies: the band header says collapse=text (shingle --collapse),
	// and the buckets of copy keys are paired with their first id only.
	copies bool
}

// errAgainstHamming refuses --against for Hamming band records, given by
// --hamming or named by the input's band header.
var errAgainstHamming = status.Usagef("--against pairs MinHash band keys with a band index; Hamming band records are looked up with index query")

// Resolve checks the options and fills in their defaults (-j, --memory),
// the one place where both are done: Run calls it, so the command line
// and the Beam pipeline go through it. Its errors are usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	o.MemoryBytes = stream.Memory(o.MemoryBytes)
	if o.Against != "" && o.Hamming != nil {
		return errAgainstHamming
	}
	if o.Hamming != nil {
		if err := o.Hamming.Check(); err != nil {
			return status.Usage(err)
		}
	}
	if o.MaxBucket < 0 {
		return status.Usagef("--max-bucket %d: want 0 (no cap) or more", o.MaxBucket)
	}
	if o.Reps < 0 {
		return status.Usagef("--reps %d: want 1 or more (0: as many as --max-bucket)", o.Reps)
	}
	o.Reps = o.reps()
	return nil
}

// Header returns the stage's header line.
func (o *Options) Header() record.Header {
	h := record.NewHeader("pairs", "max-bucket", strconv.Itoa(o.MaxBucket))
	if r := o.reps(); r != o.MaxBucket {
		h.Params = append(h.Params, record.Param{Key: "reps", Value: strconv.Itoa(r)})
	}
	if o.BBit != "" {
		h.Params = append(h.Params, record.Param{Key: bbit.Key, Value: strconv.Itoa(minhash.Bits)})
	}
	return h
}

// DefaultMaxBucket and DefaultReps are the --max-bucket and --reps of the
// command line: a bucket of up to 512 ids is paired whole (at most
// 130,816 pairs); past that, which only copies or templates make, each id
// is paired with the bucket's 32 smallest ids only.
const (
	DefaultMaxBucket = 512
	DefaultReps      = 32
)

// reps is the representatives of a capped bucket: Reps, but no more than
// MaxBucket, and MaxBucket when Reps is 0.
func (o *Options) reps() int {
	if o.Reps <= 0 || o.Reps > o.MaxBucket {
		return o.MaxBucket
	}
	return o.Reps
}

// cap is the --max-bucket and --reps of the options.
func (o *Options) cap() bucketCap { return bucketCap{max: o.MaxBucket, reps: o.reps()} }

// capOf is the cap of the bucket of a key whose high word is band: the
// options' cap, but a copy key of shingle --collapse pairs its ids with
// the first only (copyCap).
func (o *Options) capOf(band uint64) bucketCap {
	if o.copies && band == bandpkg.CopyBand {
		return copyCap
	}
	return o.cap()
}

// capOfKey is capOf for a key as written.
func (o *Options) capOfKey(key []byte) bucketCap {
	if o.copies {
		return o.capOf(parseKey(key).hi)
	}
	return o.cap()
}

// bucketCap says which pairs of a bucket are made: all of a bucket of at
// most max ids (or any, with max 0); of a larger one those of its first
// max ids and those with one of its reps (1 to max) smallest ids, as
// capPairs makes them.
type bucketCap struct {
	max, reps int
	// copies: a copy key's bucket, whose documents have one text; its
	// pairs with the first are all that is made of it, and are not
	// counted as a cap.
	copies bool
}

// copyCap pairs every id of a bucket with its first: a bucket of one
// text's documents, whose other pairs are the first's (band.CopyBand).
var copyCap = bucketCap{max: 1, reps: 1, copies: true}

// collapsedCopies says whether the input's band header says collapse=text
// (shingle --collapse).
func collapsedCopies(src *stream.Lines) (bool, error) {
	headers, _, err := src.Peek()
	if err != nil {
		return false, err
	}
	for _, h := range headers {
		if v, _ := h.Header.Get(bandpkg.CollapseKey); h.Header.Stage == "band" && v == bandpkg.CollapseText {
			return true, nil
		}
	}
	return false, nil
}

// of returns the representatives of a bucket of n distinct ids: n when it
// is not capped.
func (c bucketCap) of(n int) int {
	if c.max <= 0 || n <= c.max {
		return n
	}
	return c.reps
}

// stats are reported on stderr at the end.
type stats struct {
	records, buckets, capped, largest, duplicates int64
	// copies counts the ids of copy keys paired with their first.
	copies int64
	// notMade counts the pairs of capped buckets left out: two ids beyond
	// the representatives.
	notMade int64
	// made counts the pairs tried so far (before duplicates across buckets
	// are removed), for the progress report, which reads it from another
	// goroutine.
	made atomic.Int64
	// against: the buckets were a batch's and an index's, whose ids
	// beyond the representatives were not read.
	against bool
}

func (s *stats) report(w io.Writer, c bucketCap, upstream *record.HeaderSet) {
	if s.copies > 0 {
		fmt.Fprintf(w, "pairs: %d document(s) of a copy key (shingle --collapse) paired with the first of their set only\n", s.copies)
	}
	if s.capped > 0 {
		fmt.Fprintf(w, "pairs: %d bucket(s) held more than --max-bucket %d ids (the largest %d): each id past their first %d was paired with their %d smallest only; %d pair(s) not made\n",
			s.capped, c.max, s.largest, c.max, c.reps, s.notMade)
		if s.against {
			fmt.Fprintf(w, "pairs: (--against: counted over the ids read, the batch's and the index's representatives; pairs of two old ids are never made here)\n")
		}
	}
	if s.capped > 0 && !numberedIDs(upstream) {
		fmt.Fprintf(w, "pairs: the ids are not arrival numbers (no ids=number in the shingle header; shingle --number-from): a capped bucket's representatives are its smallest ids, not its earliest documents, and keep --pairs may keep more than one document of it\n")
	}
	if s.duplicates > 0 {
		fmt.Fprintf(w, "pairs: %d repeated (key, id) record(s) ignored: are the document ids unique?\n", s.duplicates)
	}
}

// Run reads band records and writes candidate pairs.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	src := stream.NewLines(inputs)
	sc := stream.NewScanner(src)
	defer sc.Close()
	hamming, err := hammingScheme(src, opt)
	if err != nil {
		return err
	}
	containment, err := containScheme(src)
	if err != nil {
		return err
	}
	if opt.copies, err = collapsedCopies(src); err != nil {
		return err
	}
	if containment > 0 {
		if err := checkContainCap(&opt); err != nil {
			return err
		}
		opt.MaxBucket = 0
	}
	if opt.BBit != "" && (containment > 0 || hamming != nil) {
		return status.Usagef("--bbit sets aside MinHash candidates by their b-bit signatures: not for containment or Hamming keys")
	}
	own := opt.Header()
	if opt.Against != "" && containment == 0 {
		// The index's numbered batches, for verify --documents to check
		// the files of the older documents against.
		bs, err := bandindex.ReadBatches(opt.Against)
		if err != nil {
			return err
		}
		if len(bs) > 0 {
			own.Params = append(own.Params, record.Param{Key: input.BatchesKey, Value: input.FormatBatches(bs)})
		}
	}
	out := stream.NewOutput("pairs", opt.Common, stdout, stderr, own)
	sc.OnHeader = out.W.Header
	var st stats
	out.Summary = func(stderr io.Writer) { st.report(stderr, opt.cap(), out.W.Upstream()) }
	if opt.BBit != "" {
		a := &setAside{name: opt.BBit, upstream: out.W.Upstream()}
		opt.aside = a
		summary := out.Summary
		out.Summary = func(stderr io.Writer) {
			summary(stderr)
			a.report(stderr)
		}
	}
	if containment > 0 {
		defer out.Watch(src)()
		if err := runContain(ctx, opt, containment, src, sc, out, &st); err != nil {
			return err
		}
		return out.Finish()
	}
	out.Note = func() string { return fmt.Sprintf("%d pairs tried", st.made.Load()) }
	defer out.Watch(src)()
	switch {
	case opt.Against != "" && hamming != nil:
		// The input's band header names a Hamming scheme.
		return errAgainstHamming
	case opt.Against != "":
		err = runAgainst(ctx, opt, sc, out, &st)
	case opt.Sorted:
		err = runSorted(ctx, opt, scheme{hamming}, sc, out, &st)
	default:
		err = runMemory(ctx, opt, scheme{hamming}, sc, out, &st)
	}
	if err != nil {
		return err
	}
	return out.Finish()
}

// entry is one band record: its bucket, its document and, for Hamming
// keys, its table (in what would be padding).
type entry struct {
	key   key128
	doc   uint32
	table uint32
}

// counts are the stats of the buckets, to go back to (restore).
type counts struct{ buckets, capped, largest, duplicates, notMade, made int64 }

func (st *stats) snapshot() counts {
	return counts{st.buckets, st.capped, st.largest, st.duplicates, st.notMade, st.made.Load()}
}

func (st *stats) restore(c counts) {
	st.buckets, st.capped, st.largest, st.duplicates, st.notMade = c.buckets, c.capped, c.largest, c.duplicates, c.notMade
	st.made.Store(c.made)
}

// add adds the counts of the buckets of o to st.
func (st *stats) add(o *stats) {
	st.buckets += o.buckets
	st.capped += o.capped
	st.largest = max(st.largest, o.largest)
	st.duplicates += o.duplicates
	st.copies += o.copies
	st.notMade += o.notMade
	st.made.Add(o.made.Swap(0))
}

// numberedIDs says whether the shingle header says the ids are arrival
// numbers.
func numberedIDs(upstream *record.HeaderSet) bool {
	h, ok := upstream.Get("shingle")
	v, _ := h.Get("ids")
	return ok && v == "number"
}

// noteCap counts a bucket of size distinct ids that c caps, and the pairs
// it leaves out (capPairs).
func (st *stats) noteCap(size int, c bucketCap) {
	if c.copies {
		st.copies += int64(size - 1)
		return
	}
	reps := c.of(size)
	if reps == size {
		return
	}
	st.capped++
	st.largest = max(st.largest, int64(size))
	// Left out: the pairs of two ids past the representatives of which
	// the later is past the first c.max.
	for i := c.max; i < size; i++ {
		st.notMade += int64(i - reps)
	}
}

// noteCapAgainst counts a bucket of a batch and an index (isNew per id,
// ascending) that c caps, and the pairs with a new id it leaves out. The
// index's ids beyond the first c.max+1 are not read unless a new id is a
// representative: the counts are of the ids read, the batch's all among
// them.
func (st *stats) noteCapAgainst(isNew []bool, c bucketCap) {
	if c.copies {
		for _, n := range isNew[1:] {
			if n {
				st.copies++
			}
		}
		return
	}
	reps := c.of(len(isNew))
	if reps == len(isNew) {
		return
	}
	st.capped++
	st.against = true
	st.largest = max(st.largest, int64(len(isNew)))
	news := int64(0) // new ids past the representatives, before i
	for i := reps; i < len(isNew); i++ {
		if i >= c.max {
			if isNew[i] {
				st.notMade += int64(i - reps)
			} else {
				st.notMade += news
			}
		}
		if isNew[i] {
			news++
		}
	}
}
