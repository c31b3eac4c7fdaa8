// Package sketch is the sketch stage: it reads shingle records and writes
// sketch records "id TAB size TAB values", where size is the number of
// distinct shingles and values depend on the method:
//
//	minhash  n values: the minimum of each of n hash functions (minhash.Family)
//	oph      n values: one-permutation hashing with optimal densification
//	bottomk  up to s values: the s smallest under one permutation (MIN_s)
//	modm     the values that are 0 mod m under one permutation (MOD_m)
//	simhash  one f-bit SimHash fingerprint of the weighted shingles (simhash.go)
//
// and the hyperplane method reads documents that carry a vector, not
// shingle records, and writes the fingerprints of the vectors as simhash
// writes its own (hyperplane.go); the pstable method reads them too and
// writes n p-stable hash values, as minhash writes its n (pstable.go).
package sketch

import (
	"bytes"
	"context"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Methods.
const (
	MinHash = "minhash"
	OPH     = "oph"
	BottomK = "bottomk"
	ModM    = "modm"
	SimHash = "simhash"
	// Hyperplane sketches vectors (hyperplane.go).
	Hyperplane = "hyperplane"
	// PStable sketches vectors for the Euclidean distance (pstable.go).
	PStable = "pstable"
)

// Options configure the stage.
type Options struct {
	Method string
	// N is the signature length of minhash and oph, S the sample size of
	// bottomk, M the modulus of modm.
	N, S int
	M    uint64
	Seed uint64
	// F is the fingerprint length of simhash (64 or 128; 0 means 64),
	// Weight its feature weight (tf, logtf, binary or idf; "" means tf)
	// and DF the document-frequency table that idf reads.
	F      int
	Weight string
	DF     string
	// Bits is the fingerprint length of hyperplane (a multiple of 64; 0
	// means 64) and Dim the vectors' dimension (0: that of the first
	// vector). Vectors is how the documents are read, VectorField the JSON
	// Lines field of the vector (Resolve makes Vectors read it). Cosine,
	// when not 0, has the stage say on stderr the Hamming radius that
	// keeps the pairs at that cosine (RecallTarget), or past 128 bits the
	// banding band --cosine chooses.
	Bits, Dim   int
	Vectors     input.Reading
	VectorField string
	Cosine      float64
	// Width is the bucket width W of pstable, whose length is N.
	// Distance, when not 0, has the stage say on stderr the banding band
	// --distance chooses for it.
	Width, Distance float64

	stream.Common
}

// Resolve checks the options and fills in their defaults (-j), the one
// place where both are done: Run and RunDocuments call it, so the command
// line and the Beam pipeline go through it. Its errors are usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	switch o.Method {
	case MinHash, OPH:
		if o.N < 1 || o.N > 1<<16 {
			return status.Usagef("-n %d: want 1 to 65536", o.N)
		}
	case BottomK:
		if o.S < 1 {
			return status.Usagef("-s %d: want at least 1", o.S)
		}
	case ModM:
		if o.M < 1 {
			return status.Usagef("-m %d: want at least 1", o.M)
		}
	case SimHash:
		return o.checkSimHash()
	case Hyperplane:
		return o.checkHyperplane()
	case PStable:
		return o.checkPStable()
	default:
		return status.Usagef("unknown method %q: want minhash, oph, bottomk, modm, simhash, hyperplane or pstable", o.Method)
	}
	return nil
}

// Header returns the stage's header line.
func (o *Options) Header() record.Header {
	seed := strconv.FormatUint(o.Seed, 10)
	switch o.Method {
	case MinHash:
		return record.NewHeader("sketch", "method", o.Method, "n", strconv.Itoa(o.N), "seed", seed, "family", "mixmuladd64")
	case OPH:
		return record.NewHeader("sketch", "method", o.Method, "n", strconv.Itoa(o.N), "seed", seed, "densify", "optimal")
	case BottomK:
		return record.NewHeader("sketch", "method", o.Method, "s", strconv.Itoa(o.S), "seed", seed)
	case SimHash:
		return o.simHashHeader(nil)
	case Hyperplane:
		return o.hyperplaneHeader(o.Dim)
	case PStable:
		return o.pstableHeader(o.Dim)
	}
	return record.NewHeader("sketch", "method", o.Method, "m", strconv.FormatUint(o.M, 10), "seed", seed)
}

// sketcher appends the values of one set's sketch.
type sketcher interface {
	values(dst []uint64, set []uint64) []uint64
}

type familySketcher struct{ f *minhash.Family }

func (s familySketcher) values(dst, set []uint64) []uint64 {
	n := s.f.Len()
	dst = append(dst[:0], make([]uint64, n)...)
	s.f.Signature(dst, set)
	return dst
}

// partSketcher is a sketcher that takes the values in parts, as
// shingle.Worker.Stream hands them on: begin, add each part (values may
// repeat), end with the number of values added in all; the sketch is
// values' of the set of them.
type partSketcher interface {
	begin(dst []uint64) []uint64
	add(dst, part []uint64)
	end(dst []uint64, values int)
}

func (s familySketcher) begin(dst []uint64) []uint64 {
	dst = append(dst[:0], make([]uint64, s.f.Len())...)
	s.f.Begin(dst)
	return dst
}

func (s familySketcher) add(dst, part []uint64) { s.f.Add(dst, part) }

func (s familySketcher) end([]uint64, int) {}

// prefix returns the sketcher of s's signatures of which only the first
// m values are read: it computes the first m rounded up to a multiple of
// 16 (BenchmarkFamilyPrefix: 112 of 128 functions take 9 % less time),
// and leaves the others Empty.
func (s familySketcher) prefix(m int) partSketcher {
	n := s.f.Len()
	if m = (m + 15) &^ 15; m >= n {
		return s
	}
	return prefixSketcher{n: n, f: s.f.Prefix(m)}
}

// prefixSketcher is a family's sketcher that computes the first functions
// of n (f) alone, for the band records of the first rows.
type prefixSketcher struct {
	n int
	f *minhash.Family
}

func (s prefixSketcher) begin(dst []uint64) []uint64 {
	dst = append(dst[:0], make([]uint64, s.n)...)
	for i := range dst {
		dst[i] = minhash.Empty
	}
	return dst
}

func (s prefixSketcher) add(dst, part []uint64) { s.f.Add(dst, part) }

func (s prefixSketcher) end([]uint64, int) {}

type ophSketcher struct{ o *minhash.OPH }

func (s ophSketcher) begin(dst []uint64) []uint64 {
	dst = append(dst[:0], make([]uint64, s.o.Len())...)
	s.o.Begin(dst)
	return dst
}

func (s ophSketcher) add(dst, part []uint64) { s.o.Add(dst, part) }

func (s ophSketcher) end(dst []uint64, values int) { s.o.Finish(dst, values) }

func (s ophSketcher) values(dst, set []uint64) []uint64 {
	dst = append(dst[:0], make([]uint64, s.o.Len())...)
	s.o.Signature(dst, set)
	return dst
}

// multisetSketcher is a sketcher that takes a set's values with their
// repeats, and counts the distinct ones itself.
type multisetSketcher interface {
	// valuesCount appends the sketch of the set of the values of hashes
	// (which may repeat, and may be reordered) and returns its size.
	// and the sum of the distinct values' hashes (setSum).
	valuesCount(dst, hashes []uint64) ([]uint64, int, uint64)
}

func (s ophSketcher) valuesCount(dst, hashes []uint64) ([]uint64, int, uint64) {
	dst = append(dst[:0], make([]uint64, s.o.Len())...)
	n, sum := s.o.SignatureCountSum(dst, hashes)
	return dst, n, sum
}

// valuesCountFine is valuesCount that also appends to fine the fine
// signature of the set (minhash.OPH.SignatureCountSumFine), for b-bit
// records of twice the positions.
func (s ophSketcher) valuesCountFine(dst, fine, hashes []uint64) ([]uint64, []uint64, int, uint64) {
	dst = append(dst[:0], make([]uint64, s.o.Len())...)
	fine = append(fine[:0], make([]uint64, minhash.FineFactor*s.o.Len())...)
	n, sum := s.o.SignatureCountSumFine(dst, fine, hashes)
	return dst, fine, n, sum
}

type bottomKSketcher struct{ b *minhash.BottomK }

func (s bottomKSketcher) values(dst, set []uint64) []uint64 { return s.b.Sample(dst[:0], set) }

type modMSketcher struct{ m *minhash.ModM }

func (s modMSketcher) values(dst, set []uint64) []uint64 { return s.m.Sample(dst[:0], set) }

func (o *Options) newSketcher(family *minhash.Family) sketcher {
	switch o.Method {
	case MinHash:
		return familySketcher{family}
	case OPH:
		return ophSketcher{minhash.NewOPH(o.N, o.Seed)}
	case BottomK:
		return bottomKSketcher{minhash.NewBottomK(o.S, o.Seed)}
	}
	return modMSketcher{minhash.NewModM(o.M, o.Seed)}
}

// Run reads shingle records from the named inputs (standard input when there
// are none) and writes sketch records to stdout.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	switch opt.Method {
	case SimHash:
		return runSimHash(ctx, opt, inputs, stdout, stderr)
	case Hyperplane:
		return runHyperplane(ctx, opt, inputs, stdout, stderr)
	case PStable:
		return runPStable(ctx, opt, inputs, stdout, stderr)
	}
	src := stream.NewLines(inputs)
	defer src.Close()
	out := stream.NewOutput("sketch", opt.Common, stdout, stderr, opt.Header())
	out.RecordsOf = "shingle"
	return out.RunPool(ctx, src, Workers(&opt))
}

// Workers returns the factory of the stage's workers, which turn chunks of
// shingle records into sketch records; the workers share the hash family.
// The Beam pipeline runs them too.
func Workers(opt *Options) stream.WorkerFactory {
	family := newFamily(opt)
	return func() stream.Worker { return &worker{opt: opt, sk: opt.newSketcher(family)} }
}

// newFamily returns the hash family the workers of the minhash method
// share, nil for the other methods.
func newFamily(opt *Options) *minhash.Family {
	if opt.Method != MinHash {
		return nil
	}
	return minhash.NewFamily(opt.N, opt.Seed)
}

type worker struct {
	opt    *Options
	sk     sketcher
	hashes []uint64
	vals   []uint64
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		id, field, err := record.SplitShingles(line)
		if err != nil {
			if bytes.IndexByte(line, '\t') < 0 {
				return record.Bad("want id TAB shingle hashes, found no TAB in %q", clipLine(line))
			}
			return err
		}
		w.hashes, _, err = record.ParseShingles(w.hashes[:0], nil, field)
		if err != nil {
			return err
		}
		w.vals = w.sk.values(w.vals, w.hashes)
		r.Out = record.AppendSketch(r.Out, id, uint64(len(w.hashes)), w.vals)
		// A record of a few hashes makes a sketch of n values: a chunk of
		// short documents makes output many times its size, passed on as
		// it grows.
		return r.Flush()
	})
}

// clipLine shortens a line for a message.
func clipLine(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
