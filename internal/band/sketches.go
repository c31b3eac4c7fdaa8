package band

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Default weights and floor of the choice of a banding (band's flags).
const (
	DefaultFPWeight = 0.5
	DefaultFNWeight = 0.5
	DefaultFloor    = 0.995
)

// Sketches is band inside the stage that makes the signatures (shingle
// --sketch minhash|oph --band T): each signature's band records, and its
// b-bit record with --bbit, are made from its values, which are never
// written as hex and parsed again. Its output is byte for byte that of the
// stage piped into band: at ten million documents band spent more than half
// of its 57 CPU-s reading and parsing the signatures' hex, and shingle 15
// CPU-s formatting it, besides the writes.
type Sketches struct {
	opt     Options
	stage   string
	banding lsh.Banding
	header  record.Header
	empty   atomic.Int64
	copies  *copyTable // with Collapse
	cache   *textCache // with Collapse
	// feed, end and report, when set (Into), take the band records
	// instead of the output.
	feed   func(records []byte) error
	end    func() error
	report func(io.Writer)
}

// Into has the band records go to feed, each result's as it comes in
// order, instead of the output, end called once they all went (and the
// b-bit file is in place), before the output is finished, and report
// write its summary last: shingle --pairs hands them to pairs.Collector,
// whose pairs end writes.
func (s *Sketches) Into(feed func(records []byte) error, end func() error, report func(io.Writer)) {
	s.feed, s.end, s.report = feed, end, report
}

// SketchOptions are the options of shingle --band T, with --bbit FILE
// when bbit is not "": the banding chosen for T with band's default
// weights and floor.
func SketchOptions(threshold float64, bbit string) Options {
	return Options{Threshold: threshold, ThresholdFlag: "--band", FPWeight: DefaultFPWeight, FNWeight: DefaultFNWeight, Floor: DefaultFloor, BBit: bbit}
}

// NewSketches chooses the banding of n-value signatures as band does for
// opt, saying so on stderr as stage.
func NewSketches(opt Options, n int, stage string, stderr io.Writer) (*Sketches, error) {
	if err := opt.Resolve(); err != nil {
		return nil, err
	}
	banding, err := opt.banding(stderr, stage, n, record.Pos{})
	if err != nil {
		return nil, err
	}
	if err := banding.Check(n); err != nil {
		return nil, err
	}
	var threshold float64
	if opt.B == 0 || opt.Threshold != 0 {
		threshold = opt.Threshold
	}
	s := &Sketches{opt: opt, stage: stage, banding: banding, header: Header(banding, threshold)}
	if opt.Collapse {
		s.copies, s.cache = newCopyTable(), newTextCache()
		s.header.Params = append(s.header.Params, record.Param{Key: CollapseKey, Value: CollapseText})
	}
	return s, nil
}

// Header is band's header line, to follow the stage's own.
func (s *Sketches) Header() record.Header { return s.header }

// Collapse says whether documents get copy records (Options.Collapse).
func (s *Sketches) Collapse() bool { return s.copies != nil }

// Sized says whether Append needs the size of a set and the sum of its
// hashes (for the b-bit file, or the copy records of --collapse); without,
// any size above 0 will do, and any sum: the band records hold neither,
// and a MinHash or OPH signature of the shingles with their repeats is
// that of their set.
func (s *Sketches) Sized() bool { return s.opt.BBit != "" || s.cache != nil }

// Rows returns how many of a signature's values Append's band records
// read (the first b·r): without Sized, no others are read.
func (s *Sketches) Rows() int { return s.banding.Rows() }

// FineBits says whether Append's b-bit records are of a finer signature
// than the band records' (Options.BBitValues).
func (s *Sketches) FineBits() bool { return s.opt.BBit != "" && s.opt.BBitValues > 0 }

// Append appends to out the band records of the signature values of the
// document id, a set of size shingles, after its copy record with
// Collapse (of the sum of its set's hashes and the hashes of its text,
// which the cache then holds), and to side its b-bit record with --bbit,
// of the values bits (values, or a finer signature of the same set); a
// document without shingles gets none (counted).
func (s *Sketches) Append(k *Keyer, out, side, id []byte, text [2]uint64, sum, size uint64, values, bits []uint64) ([]byte, []byte) {
	if size == 0 {
		s.empty.Add(1)
		return out, side
	}
	if s.copies != nil {
		out = k.AppendCopy(out, id, sum, text)
	}
	out = k.Append(out, s.banding, id, values)
	if s.opt.BBit != "" {
		side = k.AppendBBit(side, id, size, bits)
	}
	if s.cache != nil {
		s.cache.put(text, sum, size, k.hashes, k.bits)
	}
	return out, side
}

// AppendCached is Append for a document whose text the cache holds (it
// says whether it does): what the text made before, not made again.
func (s *Sketches) AppendCached(k *Keyer, out, side, id []byte, text [2]uint64) ([]byte, []byte, bool) {
	if s.cache == nil || !s.cache.get(text, &k.copy) {
		return out, side, false
	}
	e := &k.copy
	out = k.AppendCopy(out, id, e.sum, text)
	out = k.appendKeys(out, id, e.keys)
	if s.opt.BBit != "" {
		side = record.AppendBits(side, id, e.size, e.bits)
	}
	return out, side, true
}

// Run runs the pool of workers that call Append, over src to out, whose
// headers are upstream's and then Header. With --bbit each result's Value
// holds the b-bit records of its documents, written to the file with the
// same headers. The count of documents without shingles goes after
// out's summary.
func (s *Sketches) Run(ctx context.Context, src stream.Source, out *stream.Output, workers stream.WorkerFactory, upstream ...record.Header) error {
	summary := out.Summary
	out.Summary = func(stderr io.Writer) {
		if summary != nil {
			summary(stderr)
		}
		reportEmpty(stderr, s.stage, &s.empty)
		if s.copies != nil {
			s.copies.report(stderr, s.stage)
		}
		if s.report != nil {
			s.report(stderr)
		}
	}
	write := func(r *stream.Result) error {
		if s.copies != nil {
			// The table is consulted here, in arrival order.
			r.Out = s.copies.filter(r.Out)
		}
		if s.feed != nil {
			if err := s.feed(r.Out); err != nil {
				return err
			}
			r.Out = r.Out[:0]
		}
		return out.Sink(r)
	}
	if s.opt.BBit == "" {
		defer out.Watch(src)()
		if err := stream.Run(ctx, src, s.opt.Common, workers, write); err != nil {
			return err
		}
		if s.end != nil {
			if err := s.end(); err != nil {
				return err
			}
		}
		return out.Finish()
	}
	return runBBit(ctx, s.opt, out, write, s.end, src, workers, s.header, upstream...)
}
