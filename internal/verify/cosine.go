package verify

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup/internal/document"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/vector"
)

// MeasureCosine names the exact cosine similarity of vectors in the
// header (verify --cosine).
const MeasureCosine = "cosine"

// checkCosine refuses what verify --cosine (or --euclidean) does not take
// with it.
func (o *Options) checkCosine() error {
	flag := "--cosine"
	if o.Euclidean {
		flag = "--euclidean"
	}
	if o.Documents == nil || o.Shingles != "" || o.Sketches != "" || o.Hamming || o.Attach || o.Sorted || o.BBit != "" || o.Containment {
		return status.Usagef("%s scores pairs by the vectors of the documents: give --documents FILE (and --vector-field NAME), without --shingles, --sketches, --hamming, --attach, --sorted, --bbit or --containment", flag)
	}
	if o.Documents.Dim < 0 || o.Documents.Dim > vector.MaxDim {
		return status.Usagef("--dim %d: want the number of components of the vectors, at most %d", o.Documents.Dim, vector.MaxDim)
	}
	g := o.Documents.Given
	if g.TextFieldSet || g.TextSet || g.MainSet || g.NumberSet || o.Documents.Stopwords != nil {
		return status.Usagef("%s reads the vectors (--vector-field) under the documents' own ids: --text-field, --text, --main, --number-from and --stopwords are for the texts", flag)
	}
	r := g.Reading
	r.IDRequired = g.IDFieldSet
	r, err := document.VectorReading(r, o.Documents.VectorField)
	if err != nil {
		return status.Usage(err)
	}
	o.Documents.Reading = r
	return nil
}

// runCosine is verify --cosine: it reads the pairs ahead (up to
// --memory) to learn which documents are in some pair, loads their vectors
// from the documents (every document's when the pairs are larger), and
// writes the pairs whose cosine reaches the threshold, with the cosine.
func runCosine(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	out := stream.NewOutput("verify", opt.Common, stdout, stderr)
	w := out.W
	lines := stream.NewLines(inputs)
	src := newReadAhead(lines, opt.MemoryBytes)
	defer src.Close()
	peeked, _, err := lines.Peek()
	if err != nil {
		return err
	}
	for _, h := range peeked {
		if h.Header.Stage == record.AttachStage {
			return w.Header(h.Header, h.Pos)
		}
	}
	threshold := bandThreshold
	if opt.Euclidean {
		threshold = bandDistance
	}
	if err := threshold(&opt, peeked, stderr); err != nil {
		return err
	}
	if err := src.fill(ctx); err != nil {
		return err
	}
	dim, dimFrom, err := sketchedDim(opt.Documents.Dim, peeked)
	if err != nil {
		return err
	}
	st, err := loadVectors(ctx, &opt, src.needed(), dim, dimFrom, out, stderr)
	if err != nil {
		return err
	}
	if opt.Euclidean {
		w.SetOwn(euclideanHeader(opt.Threshold))
		return out.RunPool(ctx, src, func() stream.Worker { return &euclideanWorker{opt: &opt, st: st} })
	}
	w.SetOwn(Header(MeasureCosine, opt.Threshold, false))
	return out.RunPool(ctx, src, func() stream.Worker { return &cosineWorker{opt: &opt, st: st} })
}

// sketchedDim returns the dimension the vectors must have, and what says
// so: --dim (given), or the dim= of the hyperplane or pstable sketch
// header of the pairs (the vectors the candidates were found among), or 0 (the first
// vector's). A --dim that is not the header's is refused.
func sketchedDim(given int, headers []stream.HeaderAt) (int, string, error) {
	for _, h := range headers {
		m, _ := h.Header.Get("method")
		if h.Header.Stage != "sketch" || (m != "hyperplane" && m != "pstable") {
			continue
		}
		d := h.Header.Int("dim", 0)
		switch {
		case d <= 0:
		case given == 0:
			return d, "the " + m + " sketch header of the pairs, at " + h.Pos.String(), nil
		case given != d:
			return 0, "", &usageError{fmt.Sprintf("--dim %d, but the pairs were found among vectors of %d components (the sketch header at %s)", given, d, h.Pos)}
		}
	}
	if given > 0 {
		return given, "--dim", nil
	}
	return 0, "", nil
}

// loadVectors reads the vectors of the documents named by needed (all of
// them when needed is nil) into a store, the bits of their components as
// values; they have dim components, as dimFrom says (0: the first
// vector's). The documents --skip-bad passes over go to out's count.
func loadVectors(ctx context.Context, opt *Options, needed map[string]struct{}, dim int, dimFrom string, out *stream.Output, stderr io.Writer) (*store.Store, error) {
	d := opt.Documents
	src, _ := document.Source(d.Reading, d.Paths, opt.SkipBad)
	defer src.Close()
	if dim == 0 {
		n, pos, err := document.FirstDim(src, d.Reading)
		if err != nil {
			return nil, err
		}
		dim, dimFrom = n, "the first vector, at "+pos.String()
	}
	noID := new(atomic.Int64)
	defer document.ReportNoID(stderr, "verify", d.IDField, noID)
	st := store.New()
	var sample []byte
	sink := func(r *stream.Result) error {
		out.Skip(r.Skipped, r.NSkipped)
		p := r.Value.(*parsed)
		if sample == nil && p.sample != nil {
			sample = p.sample
		}
		if err := p.storeIn(st); err != nil {
			return err
		}
		return r.Err
	}
	newWorker := func() stream.Worker {
		return &vectorWorker{rd: document.NewVectorReader(d.Reading, dim, dimFrom, noID, opt.SkipBad), needed: needed}
	}
	if err := stream.Run(ctx, src, opt.Common, newWorker, sink); err != nil {
		return nil, err
	}
	document.Report(src, stderr, "verify")
	if len(needed) > 0 && st.Len() == 0 && sample != nil {
		return nil, idsMismatch(needed, d.Paths, sample, "sketch did (--format, --id-field)")
	}
	return st, nil
}

// vectorWorker reads the vectors of the needed documents of a chunk.
type vectorWorker struct {
	rd     *document.VectorReader
	needed map[string]struct{}
}

func (w *vectorWorker) Process(c *stream.Chunk, r *stream.Result) {
	p := &parsed{}
	w.rd.Vectors(c, r, func(id []byte, v []float64) error {
		if p.sample == nil {
			p.sample = append([]byte{}, id...)
		}
		if w.needed != nil {
			if _, ok := w.needed[string(id)]; !ok {
				return nil
			}
		}
		for _, x := range v {
			p.vals = append(p.vals, math.Float64bits(x))
		}
		p.arena = append(p.arena, id...)
		p.ids = append(p.ids, p.arena[len(p.arena)-len(id):len(p.arena):len(p.arena)])
		p.pos = append(p.pos, record.Pos{File: c.File})
		p.sizes = append(p.sizes, uint64(len(v)))
		p.ends = append(p.ends, len(p.vals))
		return nil
	})
	r.Value = p
}

type cosineWorker struct {
	opt *Options
	st  *store.Store
}

func (w *cosineWorker) Process(c *stream.Chunk, r *stream.Result) {
	source := "the documents (" + strings.Join(w.opt.Documents.Paths, " ") + ")"
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		a, b, ia, ib, err := lookupPair(line, w.st, source)
		if err != nil {
			return err
		}
		cos := vector.CosineBits(w.st.Values(ia), w.st.Values(ib))
		r.Out = AppendScored(r.Out, a, b, cos, 0, 0, w.opt.Threshold, false)
		return nil
	})
}
