package shingle

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/offsets"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// StageOptions configure the shingle stage.
type StageOptions struct {
	Shingle Options
	// Reading is how the documents are read.
	input.Reading
	// NoID counts the documents whose default id field was missing (their
	// id is their line number); Run sets it.
	NoID *atomic.Int64
	// Counts writes h:c with the number of occurrences of each shingle.
	Counts bool
	// Want, when set, leaves unread the text of a TSV line whose id it
	// does not want: Documents hands it over with a nil text
	// (input.DocParser.Want).
	Want func(id []byte) bool
	// Offsets, when set, names the file that gets where each document's
	// line is in its input (internal/offsets), for verify --offsets.
	Offsets string
	// places says which inputs have offsets (WriteOffsets), by number
	// from 1.
	places []bool
	stream.Common
}

// Resolve checks the options and fills in their defaults (-j), the one
// place where both are done: Run and sketch.RunDocuments call it, so the
// command line and the Beam pipeline go through it. Its errors are usage
// errors.
func (o *StageOptions) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	if err := CheckK(o.Shingle.K); err != nil {
		return err
	}
	if o.Shingle.Norm.Punct && o.Shingle.Unit != Char {
		return status.Usagef("--normalize punct is for --unit char: %s shingles ignore punctuation and spacing already", o.Shingle.Unit)
	}
	return o.Reading.Check(o.NoHeader)
}

// Bind binds arrival numbers to the named inputs: the header says what
// each input was (input.FingerprintInputs), so that the stages that read
// the documents again by number can check they are given the same. The
// command line's Run and sketch.RunDocuments call it; the Beam pipeline,
// whose inputs are patterns on its own file systems, does not, and its
// numbers are bound to nothing.
func (o *StageOptions) Bind(inputs []string) {
	if o.Number && !o.NoHeader {
		o.Inputs = input.FingerprintInputs(inputs)
	}
}

// MaxK is the greatest -k: a worker holds the hashes of the last K units,
// and each document's window starts with K steps, so a K of millions
// would hold megabytes a worker and spend milliseconds a document for
// shingles no document of that few units has (they get one shingle, the
// whole text).
const MaxK = 1 << 16

// CheckK refuses a shingle length below 1 or above MaxK, as a usage error.
func CheckK(k int) error {
	if k < 1 {
		return status.Usagef("-k %d: want at least 1", k)
	}
	if k > MaxK {
		return status.Usagef("-k %d: want at most %d units (a worker holds the last k units' hashes)", k, MaxK)
	}
	return nil
}

// Header returns the header line the stage writes.
func (o *StageOptions) Header() record.Header {
	h := record.NewHeader("shingle",
		"unit", o.Shingle.Unit.String(),
		"k", strconv.Itoa(o.Shingle.K),
		"hash", o.Shingle.Scheme.String(),
		"seed", strconv.FormatUint(o.Shingle.Seed, 10),
		"normalize", o.Shingle.Norm.String(),
		"counts", yesNo(o.Counts))
	if o.Shingle.Unit == Stopword {
		sw := o.Shingle.Stopwords
		if sw == nil {
			sw = English()
		}
		h.Params = append(h.Params, record.Param{Key: "stopwords", Value: sw.Name()})
	}
	h.Params = append(h.Params, o.Reading.Params()...)
	return h
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Run reads documents from the named inputs (standard input when there are
// none) and writes shingle records to stdout.
func Run(ctx context.Context, opt StageOptions, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	opt.Bind(inputs)
	src, unit := document.Source(opt.Reading, inputs, opt.SkipBad)
	defer src.Close()
	out := stream.NewOutput("shingle", opt.Common, stdout, stderr, opt.Header())
	out.Unit = unit
	out.Summary = func(stderr io.Writer) { document.Report(src, stderr, "shingle") }
	end, err := opt.WriteOffsets(inputs, out, stderr)
	if err != nil {
		return err
	}
	opt.NoID = new(atomic.Int64)
	crowded := hashsort.Crowded()
	err = end(out.RunPool(ctx, src, Workers(&opt)))
	document.ReportNoID(stderr, "shingle", opt.IDField, opt.NoID)
	ReportCrowded(stderr, "shingle", crowded)
	return err
}

// WriteOffsets starts the offsets file of the run (Offsets) of inputs,
// whose records out writes as the workers make them (those of the inputs
// that have offsets: the others are named on stderr); end ends it with the
// run's error, and puts it in place only after a run without one. Without
// Offsets, end returns the error.
func (o *StageOptions) WriteOffsets(inputs []string, out *stream.Output, stderr io.Writer) (end func(error) error, err error) {
	if o.Offsets == "" {
		return func(err error) error { return err }, nil
	}
	if len(inputs) == 0 || slices.Contains(inputs, "-") {
		return nil, status.Usagef("--offsets %s: give the documents as files: verify reads their lines again where they are, which standard input can't give", o.Offsets)
	}
	w, err := offsets.Create(o.Offsets, inputs, o.Reading, o.Header())
	if err != nil {
		return nil, err
	}
	if len(w.Without) > 0 {
		fmt.Fprintf(stderr, "shingle: --offsets %s: %d of %d input(s) have no offsets, and verify --offsets reads every document whole: %s\n", o.Offsets, len(w.Without), len(inputs), strings.Join(w.Without, ", "))
	}
	o.places = w.Has
	out.Places = w
	return func(err error) error {
		if err != nil {
			w.Abort()
			return err
		}
		return w.Commit()
	}, nil
}

// ReportCrowded says how many documents had shingle hashes that crowded
// one part of a hash table (the one-pass sorted set, the distinct set of
// --sketch, OPH's count), so that they were sorted instead: the output is
// the same, the time longer. Shingle hashes are mixed and uniform: values
// that crowd a table were chosen to collide. since is hashsort.Crowded()
// when the run began.
func ReportCrowded(stderr io.Writer, stage string, since int64) {
	if n := hashsort.Crowded() - since; n > 0 {
		fmt.Fprintf(stderr, "%s: %d document(s) had shingle hashes that crowded one part of a hash table (not uniform: chosen to collide?), and were sorted instead: the same output, in more time\n", stage, n)
	}
}

// Workers returns the factory of the stage's workers.
func Workers(opt *StageOptions) stream.WorkerFactory {
	return func() stream.Worker { return NewWorker(opt) }
}

// NewWorker returns the stage's worker: it turns a chunk of document lines
// (or of whole files) into shingle records. The Beam pipeline runs it too.
func NewWorker(opt *StageOptions) *Worker {
	w := &Worker{opt: opt, sh: New(opt.Shingle),
		Reader: document.NewReader(opt.Reading, opt.NoID, opt.Want, opt.SkipBad)}
	w.Reader.Places = opt.places
	return w
}

// Worker is the stage's worker. It keeps scratch space: one per goroutine.
type Worker struct {
	opt *StageOptions
	sh  *Shingler
	// Reader reads the documents of a chunk (Documents).
	*document.Reader
	hashes []uint64
	set    []uint64 // scratch: the distinct hashes, swapped with hashes
	sorter hashsort.Sorter
	// distinct is the scratch table of Distinct.
	distinct distinctSet
}

// Process appends to r.Out the shingle record of each document of a chunk.
func (w *Worker) Process(c *stream.Chunk, r *stream.Result) {
	w.Documents(c, r, func(id, text []byte) error {
		var err error
		if r.Out, err = w.AppendRecord(r.Out, id, text); err != nil {
			return err
		}
		// Many short documents can make output several times the
		// chunk: pass it on as it grows. An error here is the run
		// being stopped, which the pool reports.
		_ = r.Flush()
		return nil
	})
}

// AppendRecord appends the shingle record of one document. It refuses,
// with out unchanged, a record longer than stream.MaxLine: the stages after
// shingle could not read it.
func (w *Worker) AppendRecord(out, id, text []byte) ([]byte, error) {
	w.hashes = w.sh.Append(w.hashes[:0], text)
	var distinct int
	if w.opt.Counts {
		w.sorter.Sort(w.hashes)
		distinct = countDistinct(w.hashes)
	} else {
		w.set = w.sorter.AppendSet(w.set[:0], w.hashes)
		w.hashes, w.set = w.set, w.hashes
		distinct = len(w.hashes)
	}
	// Each distinct hash takes 17 bytes or more ("h " or "h:c "), and the
	// id and a TAB come first, less the last space.
	n := len(id) + 17*distinct
	if n > stream.MaxLine {
		return out, tooLong("at least ", n)
	}
	// The record's room in one allocation (all of it without counts): a
	// huge document's record is not grown by doubling, which held it
	// about twice over.
	out = slices.Grow(out, n+1)
	start := len(out)
	if w.opt.Counts {
		out = record.AppendShingleCounts(out, id, w.hashes)
	} else {
		out = record.AppendShingles(out, id, w.hashes)
	}
	if n := len(out) - start - 1; n > stream.MaxLine {
		return out[:start], tooLong("", n)
	}
	return out, nil
}

// countDistinct counts the distinct values of sorted hashes.
func countDistinct(hashes []uint64) int {
	n := 0
	for i, h := range hashes {
		if i == 0 || h != hashes[i-1] {
			n++
		}
	}
	return n
}

// tooLong refuses a document whose shingle record would be n bytes.
func tooLong(atLeast string, n int) error {
	return record.Bad("the shingle record of this document would be %s%d bytes, more than the longest line the stages read, %d bytes: split the document", atLeast, n, stream.MaxLine)
}
