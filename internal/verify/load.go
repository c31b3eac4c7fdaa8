package verify

import (
	"context"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/store"
	"github.com/neardup/neardup/internal/stream"
)

// parsed is a chunk of loaded records.
type parsed struct {
	ids   [][]byte
	pos   []record.Pos
	sizes []uint64
	ends  []int
	vals  []uint64
	arena []byte
	// sample is the id of the chunk's first document (verify --documents).
	sample []byte
}

// storeIn adds the chunk's documents to st, each id once: a repeated
// one is an error at its place.
func (p *parsed) storeIn(st *store.Store) error {
	start := 0
	for i, id := range p.ids {
		if !st.Add(id, p.sizes[i], p.vals[start:p.ends[i]]) {
			return record.Errorf(p.pos[i], "document %s appears more than once", id)
		}
		start = p.ends[i]
	}
	return nil
}

type loadWorker struct {
	sketches bool
	skipBad  bool
	// needed, when not nil, holds the ids to load; other records are
	// passed over without parsing their values.
	needed map[string]struct{}
	sk     record.Sketch
}

func (w *loadWorker) Process(c *stream.Chunk, r *stream.Result) {
	p := &parsed{}
	line0 := c.FirstLine
	n := int64(0)
	c.Lines(r, w.skipBad, func(line []byte, ordinal int64) error {
		n = ordinal - c.FirstOrdinal
		var id []byte
		var size uint64
		if w.needed != nil {
			id = record.Key(line)
			// Every id is checked, also those passed over.
			if err := record.CheckID(id); err != nil {
				return err
			}
			if _, ok := w.needed[string(id)]; !ok {
				return nil
			}
		}
		if w.sketches {
			if err := record.ParseSketch(&w.sk, line); err != nil {
				return err
			}
			id, size = w.sk.ID, w.sk.Size
			p.vals = append(p.vals, w.sk.Values...)
		} else {
			var field []byte
			var err error
			if id, field, err = record.SplitShingles(line); err != nil {
				return err
			}
			before := len(p.vals)
			p.vals, _, err = record.ParseShingles(p.vals, nil, field)
			if err != nil {
				p.vals = p.vals[:before]
				return err
			}
			size = uint64(len(p.vals) - before)
		}
		start := len(p.arena)
		p.arena = append(p.arena, id...)
		p.ids = append(p.ids, p.arena[start:len(p.arena):len(p.arena)])
		p.pos = append(p.pos, record.Pos{File: c.File, Line: line0 + n})
		p.sizes = append(p.sizes, size)
		p.ends = append(p.ends, len(p.vals))
		return nil
	})
	r.Value = p
}

// load reads shingle or sketch records into a store (only those of the
// needed ids, unless needed is nil). Headers go to w as secondary headers.
func load(ctx context.Context, name string, sketches bool, needed map[string]struct{}, opt *Options, w *record.Writer, out *stream.Output) (*store.Store, []stream.HeaderAt, error) {
	src := stream.NewLines([]string{name})
	defer src.Close()
	st := store.New()
	var headers []stream.HeaderAt
	order := stream.HeaderOrder{Stage: "shingle"}
	// MinHash and OPH signatures all have the header's n= values, or
	// without a header the first one's number.
	length := record.SketchLength{N: -1}
	fixed := !sketches
	if sketches {
		order.Stage = "sketch"
	}
	sink := func(r *stream.Result) error {
		if err := order.Check(r); err != nil {
			return err
		}
		for _, h := range r.Headers {
			headers = append(headers, h)
			if err := w.Secondary(h.Header, h.Pos); err != nil {
				return err
			}
			if sketches && h.Header.Stage == "sketch" && !fixed {
				fixed = true
				if m, _ := h.Header.Get("method"); m == "minhash" || m == "oph" {
					length = record.SketchLength{N: h.Header.Int("n", -1), Pos: h.Pos, FromHeader: true}
				}
			}
		}
		out.Skip(r.Skipped, r.NSkipped)
		p := r.Value.(*parsed)
		start := 0
		for i, id := range p.ids {
			var e error
			vals := p.vals[start:p.ends[i]]
			start = p.ends[i]
			if !fixed && p.sizes[i] > 0 {
				fixed = true
				length = record.SketchLength{N: len(vals), Pos: p.pos[i]}
			}
			// An empty document's sketch is not read: it scores 0.
			if err := length.Check(len(vals)); err != nil && p.sizes[i] > 0 {
				e = record.Errorf(p.pos[i], "%v", err)
			} else if !st.Add(id, p.sizes[i], vals) {
				e = record.Errorf(p.pos[i], "id %s appears more than once", id)
			}
			if e != nil {
				if !opt.SkipBad {
					return e
				}
				out.Skip([]*record.Error{e.(*record.Error)}, 1)
			}
		}
		return r.Err
	}
	err := stream.Run(ctx, src, opt.Common, func() stream.Worker { return &loadWorker{sketches: sketches, skipBad: opt.SkipBad, needed: needed} }, sink)
	if err != nil {
		return nil, nil, err
	}
	return st, headers, nil
}
