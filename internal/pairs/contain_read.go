package pairs

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// containRead reads containment band records on jobs workers, chunk by
// chunk: each worker parses its chunk's records into entries numbered by
// the chunk's own ids (containChunk), and the sink, in input order, gives
// each id its number across the input (the order ids first come) and
// renumbers the chunk's entries. What it finds wrong is what reading the
// records one after another would find first: a bad line (skipped under
// --skip-bad), a header that does not fit, an id that comes with two sizes
// (at the place of its second size).
func containRead(ctx context.Context, src stream.Source, opt *Options, out *stream.Output, st *stats) (*containRecords, error) {
	rd := &containRecords{index: map[string]uint32{}}
	var global []uint32
	sink := func(r *stream.Result) error {
		cc, _ := r.Value.(*containChunk)
		if cc == nil {
			cc = &containChunk{}
		}
		// The ids' first records come before any line that stopped the
		// chunk, and a conflict with an earlier chunk at an id's first
		// record before a conflict within the chunk.
		var stop error
		var at int64
		global = global[:0]
		for l, id := range cc.ids {
			d, seen := rd.index[id]
			if !seen {
				if len(rd.ids) == 1<<32-1 {
					return fmt.Errorf("more than %d distinct ids: use --sorted", 1<<32-1)
				}
				d = uint32(len(rd.ids))
				rd.ids, rd.sizes = append(rd.ids, id), append(rd.sizes, cc.sizes[l])
				rd.index[id] = d
			} else if rd.sizes[d] != cc.sizes[l] {
				stop, at = sizesError(cc.first[l], id, rd.sizes[d], cc.sizes[l]), cc.first[l].Line
				break
			}
			global = append(global, d)
		}
		if c := cc.conflict; stop == nil && c != nil {
			stop, at = sizesError(c.pos, cc.ids[c.local], rd.sizes[global[c.local]], c.size), c.pos.Line
		}
		for _, h := range r.Headers {
			if stop != nil && h.Pos.Line > at {
				break
			}
			if err := out.W.Header(h.Header, h.Pos); err != nil {
				return err
			}
		}
		skipped := r.Skipped
		if stop != nil {
			skipped = skipped[:0:0]
			for _, e := range r.Skipped {
				if e.Pos.Line < at {
					skipped = append(skipped, e)
				}
			}
			out.Skip(skipped, int64(len(skipped)))
			return stop
		}
		out.Skip(skipped, r.NSkipped)
		if r.Err != nil {
			return r.Err
		}
		for i := range cc.entries {
			cc.entries[i].doc = global[cc.entries[i].doc]
		}
		if len(cc.entries) > 0 {
			rd.chunks = append(rd.chunks, containChunk{entries: cc.entries, parts: cc.parts})
			rd.entries += len(cc.entries)
		}
		n := int64(len(cc.entries))
		st.records += n
		out.Count(n)
		return nil
	}
	newWorker := func() stream.Worker { return &containWorker{skipBad: opt.SkipBad, local: map[string]uint32{}} }
	if err := stream.Run(ctx, src, opt.Common, newWorker, sink); err != nil {
		return nil, err
	}
	rd.index = nil
	return rd, nil
}

// containRecords are the records read: their entries, chunk by chunk,
// numbered by ids, and each id's size.
type containRecords struct {
	chunks  []containChunk
	entries int
	ids     []string
	sizes   []uint64
	index   map[string]uint32
}

// containChunk is what a worker makes of a chunk: an entry per record,
// whose doc numbers the chunk's distinct ids in the order they first come,
// in keyParts parts by key (part p is entries[parts[p]:parts[p+1]]); each
// id's size and the place of its first record.
type containChunk struct {
	entries []entry
	parts   [keyParts + 1]uint32
	ids     []string
	sizes   []uint64
	first   []record.Pos
	// conflict is a record whose size is not that of the chunk's first
	// record of its id: the chunk stops there.
	conflict *sizeConflict
}

type sizeConflict struct {
	local uint32
	size  uint64
	pos   record.Pos
}

// errSizes stops a chunk at a conflict; it is not a bad line, which
// --skip-bad would skip.
var errSizes = errors.New("an id with two sizes")

func sizesError(pos record.Pos, id string, first, other uint64) error {
	return record.Errorf(pos, "id %s comes with sizes %d and %d", id, first, other)
}

// containWorker parses containment band records.
type containWorker struct {
	skipBad bool
	local   map[string]uint32
	// parsed holds the chunk's entries in input order.
	parsed []entry
}

func (w *containWorker) Process(c *stream.Chunk, r *stream.Result) {
	cc := &containChunk{}
	r.Value = cc
	w.parsed = w.parsed[:0]
	defer func() { cc.entries = partition(w.parsed, &cc.parts) }()
	clear(w.local)
	var rec record.ContainBand
	var prev []byte
	d := uint32(0)
	c.Lines(r, w.skipBad, func(line []byte, ordinal int64) error {
		if err := record.ParseContainBand(&rec, line); err != nil {
			return err
		}
		pos := record.Pos{File: c.File, Line: c.FirstLine + ordinal - c.FirstOrdinal}
		// band writes a document's records one after another: most
		// records are of the id before.
		if prev == nil || !bytes.Equal(rec.ID, prev) {
			var seen bool
			d, seen = w.local[string(rec.ID)]
			if !seen {
				d = uint32(len(cc.ids))
				id := string(rec.ID)
				cc.ids, cc.sizes, cc.first = append(cc.ids, id), append(cc.sizes, rec.Size), append(cc.first, pos)
				w.local[id] = d
			}
			prev = rec.ID
		}
		if cc.sizes[d] != rec.Size {
			cc.conflict = &sizeConflict{d, rec.Size, pos}
			return errSizes
		}
		probe := uint32(0)
		if rec.Probe {
			probe = 1
		}
		w.parsed = append(w.parsed, entry{key: containKey(rec.Key), doc: d, table: probe})
		return nil
	})
}

// partition returns the entries in keyParts parts by key, and where each
// part starts (ends holds keyParts+1 offsets).
func partition(entries []entry, ends *[keyParts + 1]uint32) []entry {
	for _, e := range entries {
		ends[keyPart(e.key)+1]++
	}
	for i := 1; i < len(ends); i++ {
		ends[i] += ends[i-1]
	}
	next := *ends
	out := make([]entry, len(entries))
	for _, e := range entries {
		p := keyPart(e.key)
		out[next[p]] = e
		next[p]++
	}
	return out
}
