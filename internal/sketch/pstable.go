package sketch

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/vector"
)

// The pstable method reads documents that carry a vector, as hyperplane
// does, and writes "id TAB size TAB values" as minhash does: value i is the
// p-stable hash ⌊(a_i·v + b_i)/W⌋ of package vector, a signed integer
// written as the hex of its two's complement, so that band keys r of them
// as it keys r minhash values; size is the vector's dimension, never 0:
// the zero vector is a point like any other for the Euclidean distance,
// not an empty document that band leaves without keys.

func (o *Options) checkPStable() error {
	if o.N < 1 || o.N > 1<<16 {
		return status.Usagef("-n %d: want 1 to 65536", o.N)
	}
	if !(o.Width > 0) || math.IsInf(o.Width, 0) {
		return status.Usagef("--width %g: want the bucket width, a distance above 0", o.Width)
	}
	if o.Distance != 0 && (!(o.Distance > 0) || math.IsInf(o.Distance, 0)) {
		return status.Usagef("--distance %g: want a distance above 0", o.Distance)
	}
	if o.Dim < 0 || o.Dim > vector.MaxDim {
		return status.Usagef("--dim %d: want the number of components of the vectors, at most %d", o.Dim, vector.MaxDim)
	}
	r, err := document.VectorReading(o.Vectors, o.VectorField)
	if err != nil {
		return status.Usage(err)
	}
	o.Vectors = r
	return nil
}

// pstableHeader returns the stage's header for pstable, for vectors of
// dim components.
func (o *Options) pstableHeader(dim int) record.Header {
	return record.NewHeader("sketch", "method", PStable, "n", strconv.Itoa(o.N),
		"width", strconv.FormatFloat(o.Width, 'g', -1, 64), "seed", strconv.FormatUint(o.Seed, 10),
		"dim", strconv.Itoa(dim), "vectors", vector.Scheme)
}

func runPStable(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	return runVectors(ctx, &opt, inputs, stdout, stderr, opt.pstableHeader, func(dim int) (func(rd *document.VectorReader) stream.Worker, error) {
		if opt.Distance != 0 {
			p := vector.Collision(opt.Distance, opt.Width)
			banding, prob, ok := lsh.Amplify(opt.N, p, band.DefaultFloor)
			fmt.Fprintf(stderr, "sketch: pairs within distance %g share one of %d hashes of width %g with probability %.4f; %d bands of %d rows make them candidates with probability %.4f: band --distance %g (band -b %d -r %d)\n",
				opt.Distance, opt.N, opt.Width, p, banding.B, banding.R, prob, opt.Distance, banding.B, banding.R)
			if !ok {
				fmt.Fprintf(stderr, "sketch: warning: no banding of %d hashes reaches probability %g at distance %g; use more hashes (-n) or a wider --width\n", opt.N, band.DefaultFloor, opt.Distance)
			}
		}
		hashes := vector.NewPStable(opt.N, dim, opt.Width, opt.Seed)
		return func(rd *document.VectorReader) stream.Worker { return &pstableWorker{rd: rd, hashes: hashes} }, nil
	})
}

type pstableWorker struct {
	rd     *document.VectorReader
	hashes *vector.PStable
	vals   []uint64
}

func (w *pstableWorker) Process(c *stream.Chunk, r *stream.Result) {
	w.rd.Vectors(c, r, func(id []byte, v []float64) error {
		w.vals = w.hashes.Hashes(w.vals[:0], v)
		r.Out = record.AppendSketch(r.Out, id, uint64(len(v)), w.vals)
		return nil
	})
}
