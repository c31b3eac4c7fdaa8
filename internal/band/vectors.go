package band

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/vector"
)

// The sketches of vectors are banded as MinHash signatures are, b bands of
// r rows, their keys "key TAB id" as MinHash's: the p-stable hashes of
// sketch --method pstable are rows as minhash values are, and the bits of
// a hyperplane fingerprint (sketch --method hyperplane, any length) are
// rows one bit each, band i keyed on bits [i·r, (i+1)·r) (BitBandHash).
// --cosine C (hyperplane) and --distance R (pstable) choose b and r from
// the probability p that two sketches at C or R agree on a row, 1 − θ/π
// for a bit and Datar et al.'s p(R/W) for a hash of width W: the most rows
// a band, and as many bands as fit, under which a pair at the target
// becomes a candidate, 1 − (1 − p^r)^b, with probability at least
// --recall-at-threshold (lsh.Amplify).

// Methods of the sketches of vectors.
const (
	hyperplane = "hyperplane"
	pstable    = "pstable"
)

// checkFamily refuses a target of another family than the sketches of
// method m (the header at pos, or without one the first record), and
// sketches of vectors without the banding or its target.
func (opt *Options) checkFamily(m string, pos record.Pos) error {
	switch {
	case m == "" && (opt.Cosine != 0 || opt.Distance != 0):
		const msg = "--cosine and --distance choose the banding from the sketch header (method=hyperplane or pstable), and the input has none"
		if pos.File == "" {
			return errors.New(msg) // no record either
		}
		return record.Errorf(pos, msg)
	case opt.Cosine != 0 && m != hyperplane:
		return record.Errorf(pos, "--cosine C bands hyperplane fingerprints (sketch --method hyperplane), the input holds %s sketches", m)
	case opt.Distance != 0 && m != pstable:
		return record.Errorf(pos, "--distance R bands p-stable hashes (sketch --method pstable), the input holds %s sketches", m)
	case m == hyperplane && opt.B == 0 && opt.Cosine == 0:
		return record.Errorf(pos, "hyperplane fingerprints are banded for a cosine: give --cosine C, or -b and -r (or, for 64 or 128 bits, --hamming K)")
	case m == pstable && opt.B == 0 && opt.Distance == 0:
		return record.Errorf(pos, "pstable sketches are banded for a distance, not a similarity: give --distance R, or -b and -r")
	case (m == hyperplane || m == pstable) && opt.Threshold != 0:
		return record.Errorf(pos, "--threshold is a Jaccard similarity, and the input holds %s sketches of vectors: their target is --cosine C (hyperplane) or --distance R (pstable)", m)
	}
	return nil
}

func get(h record.Header, key string) string {
	v, _ := h.Get(key)
	return v
}

// vectorBanding returns the banding of the n rows of the sketches of
// method m (header h at pos): -b and -r, checked against n, or the one
// --cosine or --distance chooses, said on stderr. With -v it prints the
// S-curve.
func (opt *Options) vectorBanding(stderr io.Writer, m string, h record.Header, pos record.Pos, n int) (lsh.Banding, error) {
	// p is the probability that two sketches at cosine (or distance) x
	// agree on a row.
	p, rows, width := vector.BitAgreement, "bits", 0.0
	if m == pstable {
		w, err := strconv.ParseFloat(get(h, "width"), 64)
		if err != nil || !(w > 0) {
			return lsh.Banding{}, record.Errorf(pos, "the pstable sketch header has width=%s: want the width of the hashes, above 0", get(h, "width"))
		}
		p, rows, width = func(c float64) float64 { return vector.Collision(c, w) }, "hashes", w
	}
	banding := lsh.Banding{B: opt.B, R: opt.R}
	target, at := opt.Cosine, "cosine"
	if m == pstable {
		target, at = opt.Distance, "distance"
	}
	if opt.B == 0 {
		var prob float64
		var ok bool
		banding, prob, ok = lsh.Amplify(n, p(target), opt.Floor)
		fmt.Fprintf(stderr, "band: %s %g, %d %s: %d bands of %d %s (%d %s); a pair at %g agrees on a row with probability %.4f and becomes a candidate with probability %.4f\n",
			at, target, n, rows, banding.B, banding.R, rows, banding.Rows(), rows, target, p(target), prob)
		if !ok {
			fmt.Fprintf(stderr, "band: warning: no banding of %d %s reaches probability %.4g at %s %g; use more (sketch --bits or -n)\n", n, rows, opt.Floor, at, target)
		}
	} else if err := banding.Check(n); err != nil {
		return banding, record.Errorf(pos, "%v (the sketch has %d %s)", err, n, rows)
	}
	if opt.Verbose {
		xs := []float64{0, 0.5, 0.7, 0.8, 0.9, 0.95}
		if m == pstable {
			scale, of := opt.Distance, "R"
			if scale == 0 {
				scale, of = width, "the width"
			}
			fmt.Fprintf(stderr, "band: b=%d r=%d: candidate probability at distance (× %s = %g)", banding.B, banding.R, of, scale)
			xs = []float64{0.5, 1, 1.5, 2, 3}
			for i, x := range xs {
				fmt.Fprintf(stderr, "%s %g %.4f", sep(i), x, lsh.CandidateProbability(p(x*scale), banding.B, banding.R))
			}
		} else {
			fmt.Fprintf(stderr, "band: b=%d r=%d: candidate probability at cosine", banding.B, banding.R)
			for i, x := range xs {
				fmt.Fprintf(stderr, "%s %g %.4f", sep(i), x, lsh.CandidateProbability(p(x), banding.B, banding.R))
			}
		}
		fmt.Fprintln(stderr)
	}
	return banding, nil
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ","
}

// vectorHeader is band's header for the sketches of vectors: the target
// it was chosen for, a cosine as threshold= (verify --cosine takes it as
// its own) or distance=.
func (opt *Options) vectorHeader(banding lsh.Banding) record.Header {
	h := Header(banding, opt.Cosine)
	if opt.Distance != 0 {
		h.Params = append(h.Params, record.Param{Key: record.DistanceKey, Value: strconv.FormatFloat(opt.Distance, 'g', -1, 64)})
	}
	return h
}

// runBits bands hyperplane fingerprints of f bits, under the sketch
// header h.
func runBits(ctx context.Context, opt Options, src *stream.Lines, h record.Header, pos record.Pos, f int, stdout, stderr io.Writer) error {
	banding, err := opt.vectorBanding(stderr, hyperplane, h, pos, f)
	if err != nil {
		return err
	}
	out := stream.NewOutput("band", opt.Common, stdout, stderr, opt.vectorHeader(banding))
	out.RecordsOf = "sketch"
	out.CheckHeader = func(h record.Header, pos record.Pos) error {
		if h.Stage != "sketch" {
			return nil
		}
		if m, _ := h.Get("method"); m != hyperplane || h.Int("f", 0) != f {
			return record.Errorf(pos, "the input holds %d-bit hyperplane fingerprints, then %s sketches (f=%s)", f, m, get(h, "f"))
		}
		return nil
	}
	var empty atomic.Int64
	out.Summary = func(stderr io.Writer) { reportEmpty(stderr, "band", &empty) }
	return out.RunPool(ctx, src, func() stream.Worker {
		return &bitWorker{banding: banding, f: f, skipBad: opt.SkipBad, empty: &empty}
	})
}

type bitWorker struct {
	banding  lsh.Banding
	f        int
	skipBad  bool
	empty    *atomic.Int64
	sk       record.BitSketch
	buf, key []byte
}

func (w *bitWorker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.skipBad, func(line []byte, _ int64) error {
		if err := record.ParseBitSketch(&w.sk, line); err != nil {
			return err
		}
		if len(w.sk.Words)*64 != w.f {
			return record.Bad("a %d-bit fingerprint among %d-bit ones (the sketch header's f=)", len(w.sk.Words)*64, w.f)
		}
		if w.sk.Size == 0 {
			w.empty.Add(1)
			return nil
		}
		for i := range w.banding.B {
			var hash uint64
			hash, w.buf = w.banding.BitBandHash(w.buf, w.sk.Words, i)
			w.key = AppendKey(w.key[:0], i, hash)
			r.Out = record.AppendBand(r.Out, w.key, w.sk.ID)
		}
		return nil
	})
}

// checkTarget refuses --cosine or --distance out of range or with what
// they do not go with.
func (o *Options) checkTarget() error {
	switch {
	case o.Cosine != 0 && o.Distance != 0:
		return status.Usagef("--cosine (hyperplane fingerprints) and --distance (p-stable hashes) are targets of two families: give one")
	case o.Cosine != 0 && !(o.Cosine > 0 && o.Cosine < 1):
		return status.Usagef("--cosine %g: want a cosine above 0 and below 1", o.Cosine)
	case o.Distance < 0:
		return status.Usagef("--distance %g: want a distance above 0", o.Distance)
	case o.Hamming != nil || o.Containment != nil || o.BBit != "":
		return status.Usagef("--cosine and --distance band the sketches of vectors: not with --hamming, --containment or --bbit")
	case o.B != 0 || o.R != 0:
		return status.Usagef("--cosine and --distance choose -b and -r: give them or -b and -r")
	case o.Threshold != 0:
		return status.Usagef("--threshold is a Jaccard similarity: --cosine and --distance are the targets of vectors")
	}
	return nil
}
