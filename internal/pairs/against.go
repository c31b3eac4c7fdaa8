package pairs

import (
	"bytes"
	"context"
	"slices"

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
	ix, err := bandindex.Open(opt.Against)
	if err != nil {
		return err
	}
	defer ix.Close()
	w := out.W
	sc.OnHeader = func(h record.Header, pos record.Pos) error {
		if err := ix.CheckHeader(h, pos); err != nil {
			return err
		}
		return w.Header(h, pos)
	}
	sp := newSpiller(&opt)
	defer sp.remove()
	a := &againstBuckets{opt: &opt, lookup: ix.NewLookup(), sp: sp, st: st}

	first := true
	next := func() ([]byte, []byte, bool, error) {
		for sc.Scan() {
			if first {
				first = false
				if err := ix.CheckComplete(w.Upstream(), sc.Pos()); err != nil {
					return nil, nil, false, err
				}
			}
			key, id, err := bandindex.ParseRecord(sc.Line())
			if err != nil {
				if err := out.Bad(err, sc.Pos(), opt.SkipBad); err != nil {
					return nil, nil, false, err
				}
				continue
			}
			st.records++
			out.Count(1)
			return key, id, true, nil
		}
		return nil, nil, false, sc.Err()
	}
	if opt.Sorted {
		err = a.sorted(ctx, sc, next)
	} else {
		err = a.memory(ctx, next)
	}
	if err != nil {
		return err
	}
	return sp.finish(w)
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
}

// memory holds the batch, sorts it by key and id, and pairs each bucket.
func (a *againstBuckets) memory(ctx context.Context, next func() ([]byte, []byte, bool, error)) error {
	var e bandindex.Entries
	for {
		key, id, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		e.Add(key, id)
	}
	a.st.duplicates += int64(e.Sort())
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
		if err := a.bucket(key, ids); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// sorted reads the batch sorted by key, one bucket at a time.
func (a *againstBuckets) sorted(ctx context.Context, sc *stream.Scanner, next func() ([]byte, []byte, bool, error)) error {
	var key, arena []byte
	var keyPos record.Pos
	var ends []int
	var ids [][]byte
	started := false
	flush := func() error {
		ids = ids[:0]
		start := 0
		for _, e := range ends {
			ids = append(ids, arena[start:e])
			start = e
		}
		slices.SortFunc(ids, bytes.Compare)
		n := len(ids)
		ids = slices.CompactFunc(ids, bytes.Equal)
		a.st.duplicates += int64(n - len(ids))
		if err := a.bucket(key, ids); err != nil {
			return err
		}
		return ctx.Err()
	}
	for {
		k, id, ok, err := next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if !started || !bytes.Equal(k, key) {
			if started {
				if bytes.Compare(k, key) < 0 {
					return record.Errorf(sc.Pos(), "key %s comes after %s (%s): --sorted needs input sorted by key (LC_ALL=C sort -t$'\\t' -k1,1)", k, key, keyPos)
				}
				if err := flush(); err != nil {
					return err
				}
			}
			started = true
			key = append(key[:0], k...)
			keyPos = sc.Pos()
			arena, ends = arena[:0], ends[:0]
		}
		arena = append(arena, id...)
		ends = append(ends, len(arena))
	}
	if !started {
		return nil
	}
	return flush()
}

// bucket pairs the batch's ids of key (ascending, distinct) with each other
// and with the ids the index holds under key.
func (a *againstBuckets) bucket(key []byte, news [][]byte) error {
	a.st.buckets++
	old, err := a.lookup.IDs(key, a.opt.MaxBucket)
	if err != nil {
		return err
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
	a.st.noteCap(len(a.union), a.opt.MaxBucket)
	n := len(a.union)
	if a.opt.MaxBucket > 0 && n > a.opt.MaxBucket {
		n = a.opt.MaxBucket
	}
	for x := range n {
		if !a.isNew[x] {
			continue
		}
		for y := range n {
			if y == x || a.isNew[y] && y < x {
				continue // itself, or a new pair written from y
			}
			p, q := a.union[x], a.union[y]
			if y < x {
				p, q = q, p
			}
			if err := a.sp.add(p, q); err != nil {
				return err
			}
		}
	}
	return nil
}
