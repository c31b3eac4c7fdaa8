package pairs

import (
	"bytes"
	"context"

	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// With Against, the input is a batch of new band records and the index
// (bandindex) holds the records of the documents seen before. For each key
// of the batch the ids stored under it are looked up, and the pairs written
// are those of the key's bucket, the batch's ids and the stored ones
// together, that hold at least one id of the batch: pairs among the new
// documents and between new and old, never between two old ones (they were
// found when the old documents came). An id both in the batch and in the
// index counts as new. MaxBucket caps the bucket as a whole (the smallest
// ids of both).
//
// The keys are looked up in ascending order, each run of the index read
// forward one block at a time. Memory: the batch as without Against (or,
// with Sorted, its largest bucket), per run of the index its block index
// and one block, and the pair buffer (MemoryBytes, spilled to disk).

// runAgainst pairs a batch of band records with the index opt.Against.
func runAgainst(ctx context.Context, opt Options, sc *stream.Scanner, out *stream.Output, st *stats) error {
	ix, parse, err := openAgainst(&opt, sc, out, checkBatch(out), func(line []byte, b *bandRecord) (err error) {
		b.key, b.id, err = record.ParseBand(line)
		return err
	})
	if err != nil {
		return err
	}
	defer ix.Close()
	sp := newSpiller(&opt)
	defer sp.runs.Remove()
	a := &againstBuckets{opt: &opt, lookup: ix.NewLookup(), sp: sp, st: st}
	r := &bandReader{sc: sc, out: out, opt: &opt, st: st, parse: parse}
	if opt.Sorted {
		err = scanSorted(ctx, r, st, 1, a.sortedBucket)
	} else {
		err = a.memory(ctx, r)
	}
	if err != nil {
		return err
	}
	return sp.finish(out.W)
}

// checkBatch returns the check of a batch's header line against the index:
// its parameters (CheckHeader) and its numbering (CheckBatch): a batch the
// index holds already is paired as the first time, and out says so.
func checkBatch(out *stream.Output) func(*bandindex.Index, record.Header, record.Pos) error {
	return func(ix *bandindex.Index, h record.Header, pos record.Pos) error {
		if err := ix.CheckHeader(h, pos); err != nil {
			return err
		}
		same, err := ix.CheckBatch(h, pos)
		if same {
			bandindex.SameBatchNote(out.Stderr, "pairs", ix, pos, "its documents are paired as new ones, as the first time")
		}
		return err
	}
}

// openAgainst opens the index opt.Against and has check (CheckHeader, or
// CheckQueryHeader) check each header line of the batch against it as it
// is read; it returns the index and parse wrapped to check, at the batch's
// first record, that its headers name every stage the index's records went
// through.
func openAgainst(opt *Options, sc *stream.Scanner, out *stream.Output, check func(*bandindex.Index, record.Header, record.Pos) error,
	parse func([]byte, *bandRecord) error) (*bandindex.Index, func([]byte, *bandRecord) error, error) {
	ix, err := bandindex.OpenAll(opt.Against, opt.TempDir, "pairs", out.Stderr)
	if err != nil {
		return nil, nil, err
	}
	w := out.W
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		if err := check(ix, h, pos); err != nil {
			return err
		}
		return w.Header(h, pos)
	}
	first := true
	return ix, func(line []byte, b *bandRecord) error {
		if first {
			// The batch's headers come before its first record.
			first = false
			if err := ix.CheckComplete(w.Upstream(), sc.Pos()); err != nil {
				return err
			}
		}
		return parse(line, b)
	}, nil
}

// againstBuckets pairs the buckets of a batch, keys ascending, with the
// index.
type againstBuckets struct {
	opt    *Options
	lookup *bandindex.Lookup
	sp     *spiller
	st     *stats
	union  [][]byte
	isNew  []bool
	ids    [][]byte
}

// memory holds the batch, sorts it by key and id, and pairs each bucket.
func (a *againstBuckets) memory(ctx context.Context, r *bandReader) error {
	return holdBuckets(ctx, r, a.st, func(key []byte, ids [][]byte) error {
		a.st.buckets++
		return a.bucket(key, ids)
	})
}

// holdBuckets holds every record read (its key and id, and 16 bytes),
// sorts them by key and id, drops repeated ones (counted in st), and calls
// fn with each key and its ids, ascending.
func holdBuckets(ctx context.Context, r *bandReader, st *stats, fn func(key []byte, ids [][]byte) error) error {
	var e bandindex.Entries
	for {
		b, err := r.next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		e.Add(b.key, b.id)
	}
	st.duplicates += int64(e.Sort())
	var ids [][]byte
	for i := 0; i < e.Len(); {
		key, _ := e.At(i)
		ids = ids[:0]
		for ; i < e.Len(); i++ {
			k, id := e.At(i)
			if !bytes.Equal(k, key) {
				break
			}
			ids = append(ids, id)
		}
		if err := fn(key, ids); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// sortedBucket pairs one bucket of a key-sorted batch (scanSorted).
func (a *againstBuckets) sortedBucket(key []byte, _ int, ms []member) error {
	ms, repeated := distinctMembers(ms)
	a.st.duplicates += int64(repeated)
	a.ids = a.ids[:0]
	for _, m := range ms {
		a.ids = append(a.ids, m.id)
	}
	return a.bucket(key, a.ids)
}

// bucket pairs the batch's ids of key (ascending, distinct) with each other
// and with the ids the index holds under key. With MaxBucket the bucket as
// a whole, batch and index, is capped as without Against: the index is
// read for its MaxBucket+1 smallest ids, which say whether the bucket holds
// more than MaxBucket; a capped bucket's other old ids are read only when
// an id of the batch is among its representatives, which are paired with
// every id of the bucket.
func (a *againstBuckets) bucket(key []byte, news [][]byte) error {
	c := a.opt.capOfKey(key)
	limit := 0
	if c.max > 0 {
		limit = c.max + 1
	}
	old, err := a.lookup.IDs(key, limit)
	if err != nil {
		return err
	}
	if limit > 0 && len(old) == limit && len(news) > 0 && bytes.Compare(news[0], old[c.reps-1]) < 0 {
		if old, err = a.lookup.All(key); err != nil {
			return err
		}
	}
	a.union, a.isNew = a.union[:0], a.isNew[:0]
	i, j := 0, 0
	for i < len(news) || j < len(old) {
		c := 1
		switch {
		case i == len(news):
			c = 1
		case j == len(old):
			c = -1
		default:
			c = bytes.Compare(news[i], old[j])
		}
		switch {
		case c < 0:
			a.union, a.isNew = append(a.union, news[i]), append(a.isNew, true)
			i++
		case c > 0:
			a.union, a.isNew = append(a.union, old[j]), append(a.isNew, false)
			j++
		default:
			a.union, a.isNew = append(a.union, news[i]), append(a.isNew, true)
			i++
			j++
		}
	}
	a.st.noteCapAgainst(a.isNew, c)
	return capPairs(len(a.union), c, &a.st.made, func(x, y int) error {
		if !a.isNew[x] && !a.isNew[y] {
			return nil // made when the old documents came
		}
		return a.sp.add(a.union[x], a.union[y])
	})
}
