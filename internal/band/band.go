// Package band is the band stage: it reads MinHash signatures and writes one
// candidate key per band, "key TAB id". The key is 20 hex digits: the band
// number (4) and XXH64 of the band's rows (16), so that byte order groups
// the keys of a band together and documents with equal keys become candidate
// pairs. With Hamming options it reads SimHash fingerprints and writes one
// key per table of a Hamming scheme instead (hamming.go).
package band

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Options configure the stage.
type Options struct {
	// B and R give the banding; when both are 0 it is chosen from
	// Threshold for the signature length.
	B, R      int
	Threshold float64
	FPWeight  float64
	FNWeight  float64
	// Floor is the least probability that a pair at Threshold becomes a
	// candidate.
	Floor float64
	// ThresholdFlag names Threshold in messages; "" is --threshold
	// (shingle --band names its own: SketchOptions).
	ThresholdFlag string
	// Verbose prints the banding and its S-curve (or the Hamming layout).
	Verbose bool

	// Cosine, for hyperplane fingerprints, and Distance, for p-stable
	// hashes, are the target the banding is chosen for instead of
	// Threshold (vectors.go); 0 is not given.
	Cosine, Distance float64

	stream.Common

	// Hamming, when set, keys SimHash fingerprints by the tables of a
	// Hamming scheme instead of banding MinHash signatures.
	Hamming *lsh.HammingOptions

	// Containment, when set, writes containment keys of shingle records
	// instead (contain.go).
	Containment *ContainmentOptions

	// BBit, when not "", is a file that also gets each signature reduced
	// to 4 bits a value (bbit.go), for pairs --bbit and verify --bbit.
	BBit string
	// BBitValues, for shingle --sketch oph --band (Sketches), is the
	// values of the finer signature its b-bit records hold
	// (minhash.OPH.SignatureCountSumFine), stated in the file's header
	// (bbit-values=N); 0: those of the signature.
	BBitValues int

	// Collapse, for shingle --band (Sketches), gives each document a copy
	// record, and a document with the text of an earlier one that alone
	// (collapse.go).
	Collapse bool
}

// Resolve checks the options and fills in their defaults, the one place
// where both are done: Run and NewSketches call it, so the command line
// and the Beam pipeline go through it. Its errors are usage errors.
func (o *Options) Resolve() error {
	jobs, err := stream.Jobs(o.Jobs)
	if err != nil {
		return err
	}
	o.Jobs = jobs
	flag := o.ThresholdFlag
	if flag == "" {
		flag = "--threshold"
	}
	if err := status.Finite(status.Float{Flag: flag, Value: o.Threshold}, status.Float{Flag: "--fp-weight", Value: o.FPWeight},
		status.Float{Flag: "--fn-weight", Value: o.FNWeight}, status.Float{Flag: "--recall-at-threshold", Value: o.Floor}); err != nil {
		return err
	}
	if err := status.Finite(status.Float{Flag: "--cosine", Value: o.Cosine}, status.Float{Flag: "--distance", Value: o.Distance}); err != nil {
		return err
	}
	if o.BBit != "" && (o.Containment != nil || o.Hamming != nil) {
		return status.Usagef("--bbit writes MinHash signatures at 4 bits a value: not with --containment or --hamming")
	}
	if o.Cosine != 0 || o.Distance != 0 {
		if err := o.checkTarget(); err != nil {
			return err
		}
	}
	if o.Containment != nil {
		return o.Containment.Check()
	}
	if o.Hamming != nil {
		if err := o.Hamming.Check(); err != nil {
			return status.Usage(err)
		}
	}
	if (o.B == 0) != (o.R == 0) {
		return status.Usagef("give both -b and -r, or neither (then --threshold chooses them)")
	}
	if err := CheckBanding(o.B, o.R); err != nil {
		return err
	}
	// The threshold and the weights choose the banding when -b and -r are
	// not given; given, they are checked all the same (0 is not given).
	choose := o.B == 0 && o.Hamming == nil && o.Cosine == 0 && o.Distance == 0
	if (choose || o.Threshold != 0) && (o.Threshold <= 0 || o.Threshold >= 1) {
		return status.Usagef("%s %g: want a similarity between 0 and 1", flag, o.Threshold)
	}
	if (choose || o.FPWeight != 0 || o.FNWeight != 0) && (o.FPWeight < 0 || o.FNWeight < 0 || o.FPWeight+o.FNWeight == 0) {
		return status.Usagef("--fp-weight and --fn-weight must be non-negative and not both 0")
	}
	if o.Floor < 0 || o.Floor > 1 {
		return status.Usagef("--recall-at-threshold %g: want a probability from 0 to 1", o.Floor)
	}
	return nil
}

// MaxSignature is the most values a signature has (sketch -n).
const MaxSignature = 1 << 16

// CheckBanding refuses -b bands of -r rows that no signature holds: a
// negative count, or more values than MaxSignature (before b×r could
// overflow). 0 and 0 are "not given".
func CheckBanding(b, r int) error {
	if b < 0 || r < 0 {
		return status.Usagef("-b and -r must be positive")
	}
	if b > MaxSignature || r > MaxSignature || b*r > MaxSignature {
		return status.Usagef("-b %d -r %d: %d bands of %d rows need more values than a signature has (at most %d, sketch -n)", b, r, b, r, MaxSignature)
	}
	return nil
}

// AppendKey appends the key of band i with hash h.
func AppendKey(dst []byte, i int, h uint64) []byte {
	const digits = "0123456789abcdef"
	dst = append(dst, digits[i>>12&0xf], digits[i>>8&0xf], digits[i>>4&0xf], digits[i&0xf])
	return record.AppendHex64(dst, h)
}

// Run reads signatures and writes band keys.
func Run(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	if err := opt.Resolve(); err != nil {
		return err
	}
	if opt.Hamming != nil {
		return runHamming(ctx, opt, inputs, stdout, stderr)
	}
	if opt.Containment != nil {
		return runContainment(ctx, opt, inputs, stdout, stderr)
	}
	src := stream.NewLines(inputs)
	defer src.Close()
	headers, first, err := src.Peek()
	if err != nil {
		return err
	}
	n, nPos := -1, record.Pos{}
	method, sketchHeader := "", record.Header{}
	for _, h := range headers {
		if h.Header.Stage == "sketch" {
			m, _ := h.Header.Get("method")
			if !keyable(m) {
				return record.Errorf(h.Pos, "band needs minhash, oph or pstable signatures or hyperplane fingerprints, the input holds %s sketches", m)
			}
			n, nPos = h.Header.Int("n", -1), h.Pos
			method, sketchHeader = m, h.Header
		}
	}
	familyPos := nPos
	if method == "" {
		familyPos = src.FirstPos()
	}
	if err := opt.checkFamily(method, familyPos); err != nil {
		return err
	}
	if method == hyperplane {
		return runBits(ctx, opt, src, sketchHeader, nPos, sketchHeader.Int("f", 64), stdout, stderr)
	}
	// Every signature has n values: the header's n=, or without a header
	// the first signature's length.
	length := record.SketchLength{N: n, Pos: nPos, FromHeader: n >= 0}
	if n < 0 && first != nil {
		var s record.Sketch
		if err := record.ParseSketch(&s, first); err == nil {
			n = len(s.Values)
			length = record.SketchLength{N: n, Pos: src.FirstPos()}
		} else {
			fmt.Fprintf(stderr, "band: the first signature (%s) is bad and there is no sketch header: the signatures' lengths are not checked against each other\n", src.FirstPos())
		}
	}
	var banding lsh.Banding
	if method == pstable {
		banding, err = opt.vectorBanding(stderr, method, sketchHeader, nPos, n)
	} else {
		banding, err = opt.banding(stderr, "band", n, nPos)
	}
	if err != nil {
		return err
	}
	if opt.Verbose && method != pstable {
		fmt.Fprintf(stderr, "band: b=%d r=%d: candidate probability at s=0.5 %.4f, 0.7 %.4f, 0.8 %.4f, 0.9 %.4f\n", banding.B, banding.R,
			lsh.CandidateProbability(0.5, banding.B, banding.R), lsh.CandidateProbability(0.7, banding.B, banding.R),
			lsh.CandidateProbability(0.8, banding.B, banding.R), lsh.CandidateProbability(0.9, banding.B, banding.R))
	}
	// The threshold goes in the header when it chose the banding or was
	// given with it: verify takes it as its default.
	var threshold float64
	if opt.B == 0 || opt.Threshold != 0 {
		threshold = opt.Threshold
	}
	header := Header(banding, threshold)
	if method == pstable {
		header = opt.vectorHeader(banding)
	}
	out := stream.NewOutput("band", opt.Common, stdout, stderr, header)
	out.RecordsOf = "sketch"
	out.CheckHeader = func(h record.Header, pos record.Pos) error {
		if h.Stage != "sketch" {
			return nil
		}
		if m, _ := h.Get("method"); !keyable(m) || m == hyperplane {
			return record.Errorf(pos, "band needs minhash, oph or pstable signatures, the input holds %s sketches", m)
		}
		return nil
	}
	var empty atomic.Int64
	out.Summary = func(stderr io.Writer) { reportEmpty(stderr, "band", &empty) }
	workers := LengthWorkers(banding, length, opt.SkipBad, &empty)
	if opt.BBit != "" {
		return runBBit(ctx, opt, out, out.Sink, nil, src, func() stream.Worker {
			w := workers().(*worker)
			w.bbit = true
			return w
		}, header)
	}
	return out.RunPool(ctx, src, workers)
}

// keyable reports whether band keys sketches of method m in bands: minhash
// and oph signatures, and the p-stable hashes and hyperplane fingerprints
// of vectors (vectors.go).
func keyable(m string) bool {
	return m == "minhash" || m == "oph" || m == pstable || m == hyperplane
}

// banding returns the banding of -b and -r, or chooses it for n-value
// signatures (n < 0: not known) from the threshold, saying on stderr, as
// stage, what it chose. A banding given that does not fit n values of the
// header at nPos is refused.
func (opt *Options) banding(stderr io.Writer, stage string, n int, nPos record.Pos) (lsh.Banding, error) {
	banding := lsh.Banding{B: opt.B, R: opt.R}
	if opt.B == 0 && opt.R == 0 && n >= 0 {
		c := lsh.ChooseBanding(n, opt.Threshold, opt.FPWeight, opt.FNWeight, opt.Floor)
		banding = c.Banding
		fmt.Fprintf(stderr, "%s: threshold %.3g, %d-value signatures: %d bands of %d rows (%d values); S-curve threshold %.3f; a pair at %.3g becomes a candidate with probability %.4f\n",
			stage, opt.Threshold, n, c.B, c.R, c.Rows(), lsh.Threshold(c.B, c.R), opt.Threshold, c.AtThreshold)
		if !c.FloorMet {
			fmt.Fprintf(stderr, "%s: warning: no banding of %d values reaches probability %.4g at %.3g; use longer signatures (sketch -n)\n", stage, n, opt.Floor, opt.Threshold)
		}
	} else if nPos.File != "" {
		// The header says how long the signatures are: a banding that does
		// not fit is refused before any record is read. Without a header,
		// each record is checked (and can be skipped).
		if err := banding.Check(n); err != nil {
			return banding, record.Errorf(nPos, "%v (sketch -n %d)", err, n)
		}
	}
	return banding, nil
}

// reportEmpty says, as stage, how many documents got no keys.
func reportEmpty(stderr io.Writer, stage string, empty *atomic.Int64) {
	if e := empty.Load(); e > 0 {
		fmt.Fprintf(stderr, "%s: %d document(s) without shingles got no keys: they can't be near-duplicates of anything\n", stage, e)
	}
}

// Header returns the stage's header line for a banding and, when it is not
// 0, the similarity threshold it was chosen for (threshold=T, read by
// verify as its default).
func Header(banding lsh.Banding, threshold float64) record.Header {
	h := record.NewHeader("band", record.SchemeKey, record.SchemeMinHash, "b", strconv.Itoa(banding.B), "r", strconv.Itoa(banding.R), "key", "xxh64")
	if threshold != 0 {
		h.Params = append(h.Params, record.Param{Key: record.ThresholdKey, Value: strconv.FormatFloat(threshold, 'g', -1, 64)})
	}
	return h
}

// Workers returns the factory of the stage's workers, which turn chunks of
// signatures into band records and count in empty the documents without
// shingles, which get no keys. The Beam pipeline runs them too.
func Workers(banding lsh.Banding, skipBad bool, empty *atomic.Int64) stream.WorkerFactory {
	return LengthWorkers(banding, record.SketchLength{N: -1}, skipBad, empty)
}

// LengthWorkers returns the workers of Workers that also refuse a
// signature of another length than length says.
func LengthWorkers(banding lsh.Banding, length record.SketchLength, skipBad bool, empty *atomic.Int64) stream.WorkerFactory {
	return func() stream.Worker { return &worker{banding: banding, length: length, skipBad: skipBad, empty: empty} }
}

type worker struct {
	banding lsh.Banding
	length  record.SketchLength
	skipBad bool
	empty   *atomic.Int64
	sk      record.Sketch
	keyer   Keyer
	// bbit: each signature also goes, as a b-bit record, to the
	// result's Value.
	bbit bool
}

func (w *worker) Process(c *stream.Chunk, r *stream.Result) {
	var side []byte
	if w.bbit {
		defer func() { r.Value = side }()
	}
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		if err := record.ParseSketch(&w.sk, line); err != nil {
			return err
		}
		if len(w.sk.Values) < w.banding.Rows() {
			return record.Bad("signature has %d values, %d bands of %d rows need %d", len(w.sk.Values), w.banding.B, w.banding.R, w.banding.Rows())
		}
		if err := w.length.Check(len(w.sk.Values)); err != nil {
			return err
		}
		if w.sk.Size == 0 {
			w.empty.Add(1)
			return nil
		}
		r.Out = w.keyer.Append(r.Out, w.banding, w.sk.ID, w.sk.Values)
		if w.bbit {
			side = w.keyer.AppendBBit(side, w.sk.ID, w.sk.Size, w.sk.Values)
		}
		return nil
	})
}
