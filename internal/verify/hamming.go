package verify

import (
	"context"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
)

// With Hamming set, verify scores pairs by the Hamming distance of their
// SimHash fingerprints (the Sketches file holds simhash sketch records) and
// writes "idA TAB idB TAB distance" for the pairs within MaxDistance bits.
// Memory: the fingerprints, 8 or 16 bytes each, plus about 56 bytes and the
// id's length per document.

// simChunk is a chunk of loaded simhash records.
type simChunk struct {
	ids   [][]byte
	pos   []record.Pos
	sizes []uint64
	fps   []simhash.Fingerprint
	f     []int
}

type simLoadWorker struct {
	skipBad bool
	sk      record.SimSketch
}

func (w *simLoadWorker) Process(c *stream.Chunk, r *stream.Result) {
	p := &simChunk{}
	c.Lines(r, w.skipBad, func(line []byte, ordinal int64) error {
		if err := record.ParseSimSketch(&w.sk, line); err != nil {
			return err
		}
		p.ids = append(p.ids, append([]byte(nil), w.sk.ID...))
		p.pos = append(p.pos, record.Pos{File: c.File, Line: c.FirstLine + ordinal - c.FirstOrdinal})
		p.sizes = append(p.sizes, w.sk.Size)
		p.fps = append(p.fps, simhash.Fingerprint{Hi: w.sk.Hi, Lo: w.sk.Lo})
		p.f = append(p.f, w.sk.F)
		return nil
	})
	r.Value = p
}

// loadFingerprints reads simhash sketch records into a store (one value for
// 64 bits, two for 128). Headers go to w as secondary headers.
func loadFingerprints(ctx context.Context, opt *Options, w *record.Writer, out *stream.Output) (*store.Store, int, error) {
	src := stream.NewLines([]string{opt.Sketches})
	defer src.Close()
	st := store.New()
	f := 0
	var fPos record.Pos
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			if h.Header.Stage == "sketch" {
				if m, _ := h.Header.Get("method"); !record.IsFingerprints(m) {
					return record.Errorf(h.Pos, "verify --hamming needs simhash fingerprints, %s holds %s sketches", opt.Sketches, m)
				}
				if err := record.CheckHammingBits(h.Header, h.Pos, "verify --hamming"); err != nil {
					return err
				}
			}
			if err := w.Secondary(h.Header, h.Pos); err != nil {
				return err
			}
		}
		out.Skip(r.Skipped, r.NSkipped)
		p := r.Value.(*simChunk)
		for i, id := range p.ids {
			if f == 0 {
				f, fPos = p.f[i], p.pos[i]
			} else if p.f[i] != f {
				return record.Errorf(p.pos[i], "a %d-bit fingerprint, but the one at %s has %d bits", p.f[i], fPos, f)
			}
			vals := []uint64{p.fps[i].Hi}
			if f == 128 {
				vals = append(vals, p.fps[i].Lo)
			}
			if !st.Add(id, p.sizes[i], vals) {
				e := record.Errorf(p.pos[i], "id %s appears more than once", id)
				if !opt.SkipBad {
					return e
				}
				out.Skip([]*record.Error{e}, 1)
			}
		}
		return r.Err
	}
	err := stream.Run(ctx, src, opt.Common, func() stream.Worker { return &simLoadWorker{skipBad: opt.SkipBad} }, sink)
	if err != nil {
		return nil, 0, err
	}
	return st, f, nil
}

func runHamming(ctx context.Context, opt Options, inputs []string, stdout, stderr io.Writer) error {
	out := stream.NewOutput("verify", opt.Common, stdout, stderr)
	w := out.W
	st, _, err := loadFingerprints(ctx, &opt, w, out)
	if err != nil {
		return err
	}
	w.SetOwn(record.NewHeader("verify", "measure", "hamming", "max-distance", strconv.Itoa(opt.MaxDistance)))
	src := stream.NewLines(inputs)
	defer src.Close()
	return out.RunPool(ctx, src, func() stream.Worker { return &hammingWorker{opt: &opt, st: st} })
}

type hammingWorker struct {
	opt *Options
	st  *store.Store
}

func (w *hammingWorker) fingerprint(i int) simhash.Fingerprint {
	v := w.st.Values(i)
	fp := simhash.Fingerprint{Hi: v[0]}
	if len(v) > 1 {
		fp.Lo = v[1]
	}
	return fp
}

func (w *hammingWorker) Process(c *stream.Chunk, r *stream.Result) {
	c.Lines(r, w.opt.SkipBad, func(line []byte, _ int64) error {
		a, b, ia, ib, err := lookupPair(line, w.st, w.opt.Sketches)
		if err != nil {
			return err
		}
		d := simhash.Distance(w.fingerprint(ia), w.fingerprint(ib))
		if d > w.opt.MaxDistance {
			return nil
		}
		r.Out = record.AppendDistance(r.Out, a, b, d)
		return nil
	})
}
