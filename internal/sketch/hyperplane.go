package sketch

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/vector"
)

// The hyperplane method reads documents that carry a vector (not shingle
// records) and writes "id TAB size TAB fingerprint" as simhash does: the
// fingerprint's bit r is the sign of the vector's dot product with random
// Gaussian vector r (package vector), and size is the number of its
// components that are not zero. A fingerprint of 64 or 128 bits is searched
// by Hamming distance (band --hamming); a longer one (any multiple of 64)
// is written the same way, f/4 hex digits, and banded (band --cosine).

// RecallTarget is the probability with which a pair at the cosine of
// --cosine is within the radius sketch suggests.
const RecallTarget = 0.99

func (o *Options) hyperplaneBits() int {
	if o.Bits == 0 {
		return 64
	}
	return o.Bits
}

func (o *Options) checkHyperplane() error {
	b := o.hyperplaneBits()
	if b < 64 || b > vector.MaxBits || b%64 != 0 {
		return status.Usagef("--bits %d: want 64 or 128 (for band --hamming), or a multiple of 64 up to %d (for band --cosine)", b, vector.MaxBits)
	}
	if o.Dim < 0 || o.Dim > vector.MaxDim {
		return status.Usagef("--dim %d: want the number of components of the vectors, at most %d", o.Dim, vector.MaxDim)
	}
	if o.Dim > 0 {
		if err := vector.CheckPlanes(b, o.Dim); err != nil {
			return status.Usagef("--bits %d --dim %d: %v", b, o.Dim, err)
		}
	}
	if o.Cosine != 0 && !(o.Cosine > 0 && o.Cosine < 1) {
		return status.Usagef("--cosine %g: want a cosine above 0 and below 1", o.Cosine)
	}
	r, err := document.VectorReading(o.Vectors, o.VectorField)
	if err != nil {
		return status.Usage(err)
	}
	o.Vectors = r
	return nil
}

// hyperplaneHeader returns the stage's header for hyperplane, for vectors
// of dim components.
func (o *Options) hyperplaneHeader(dim int) record.Header {
	return record.NewHeader("sketch", "method", Hyperplane, "f", strconv.Itoa(o.hyperplaneBits()),
		"seed", strconv.FormatUint(o.Seed, 10), "dim", strconv.Itoa(dim), "vectors", vector.Scheme)
}

func runHyperplane(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	bits := opt.hyperplaneBits()
	return runVectors(ctx, &opt, inputs, stdout, stderr, opt.hyperplaneHeader, func(dim int) (func(rd *document.VectorReader) stream.Worker, error) {
		if err := vector.CheckPlanes(bits, dim); err != nil {
			return nil, err
		}
		if opt.Cosine != 0 && bits <= vector.HammingBits {
			k := vector.Radius(bits, opt.Cosine, RecallTarget)
			fmt.Fprintf(stderr, "sketch: pairs at cosine %g are within %d of %d bits with probability %g: band --hamming %d\n", opt.Cosine, k, bits, RecallTarget, k)
		} else if opt.Cosine != 0 {
			p := vector.BitAgreement(opt.Cosine)
			// A cosine above 0 makes p above 1/2: 64 or more bands of one
			// bit reach any floor below 1 − 2⁻⁶⁴, so the choice always meets
			// band's default floor.
			banding, prob, _ := lsh.Amplify(bits, p, band.DefaultFloor)
			fmt.Fprintf(stderr, "sketch: pairs at cosine %g agree on a bit with probability %.4f; %d bands of %d of the %d bits make them candidates with probability %.4f: band --cosine %g\n",
				opt.Cosine, p, banding.B, banding.R, bits, prob, opt.Cosine)
		}
		planes := vector.NewHyperplanes(bits, dim, opt.Seed)
		return func(rd *document.VectorReader) stream.Worker { return &planeWorker{rd: rd, planes: planes} }, nil
	})
}

// runVectors is a method over the documents' vectors: it reads them (the
// dimension from --dim or the first vector) and writes, under the header
// of the dimension, what the workers that workers makes for it write
// (workers is called once the dimension is known).
func runVectors(ctx context.Context, opt *Options, inputs []string, stdout, stderr io.Writer, header func(dim int) record.Header, workers func(dim int) (func(*document.VectorReader) stream.Worker, error)) error {
	src, unit := document.Source(opt.Vectors, inputs, opt.SkipBad)
	defer src.Close()
	dim, dimFrom := opt.Dim, "--dim"
	if dim == 0 {
		d, pos, err := document.FirstDim(src, opt.Vectors)
		if err != nil {
			return err
		}
		dim, dimFrom = d, "the first vector, at "+pos.String()
	}
	worker, err := workers(dim)
	if err != nil {
		return fmt.Errorf("sketch: %v (the dimension from %s)", err, dimFrom)
	}
	out := stream.NewOutput("sketch", opt.Common, stdout, stderr, header(dim))
	out.Unit = unit
	out.Summary = func(stderr io.Writer) { document.Report(src, stderr, "sketch") }
	noID := new(atomic.Int64)
	err = out.RunPool(ctx, src, func() stream.Worker {
		return worker(document.NewVectorReader(opt.Vectors, dim, dimFrom, noID, opt.SkipBad))
	})
	document.ReportNoID(stderr, "sketch", opt.Vectors.IDField, noID)
	return err
}

type planeWorker struct {
	rd     *document.VectorReader
	planes *vector.Hyperplanes
	words  []uint64
	dots   []float64
}

func (w *planeWorker) Process(c *stream.Chunk, r *stream.Result) {
	w.rd.Vectors(c, r, func(id []byte, v []float64) error {
		w.words, w.dots = w.planes.Words(w.words[:0], w.dots, v)
		r.Out = record.AppendBitSketch(r.Out, id, uint64(vector.NonZero(v)), w.words)
		return nil
	})
}
