package index

import (
	"bytes"
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// Match is a stored fingerprint within the distance searched of a query.
type Match struct {
	FP   uint64
	Dist int
}

// Searcher answers queries one at a time (the online mode). It holds
// scratch buffers: use one per goroutine.
type Searcher struct {
	ix      *Index
	sc      readScratch
	idsc    readScratch
	probes  []probe
	touched byte // keeps the reads that start loading blocks
}

// NewSearcher returns a Searcher of ix.
func (ix *Index) NewSearcher() *Searcher { return &Searcher{ix: ix} }

// checkK refuses a distance the tables can't answer exactly.
func (ix *Index) checkK(k int) error {
	if k < 0 || k > ix.Scheme.K {
		return fmt.Errorf("%s answers distances up to %d bits (it was built with -k %d), not %d", ix.Path, ix.Scheme.K, ix.Scheme.K, k)
	}
	return nil
}

// Search appends to dst every distinct stored fingerprint within k bits of
// q, once, with its distance. In each table it finds the first block that
// can hold q's key (the directory in memory), decodes it and the blocks
// after it while they can hold the key, and keeps the values within k bits
// that this table is the first to find (lsh.Hamming.IsFirstPermuted64).
func (s *Searcher) Search(dst []Match, q uint64, k int) ([]Match, error) {
	ix := s.ix
	if err := ix.checkK(k); err != nil {
		return dst, err
	}
	h := ix.Scheme
	// First find every table's block, then decode them: the memory reads
	// of different tables do not wait for one another.
	if cap(s.probes) < len(ix.tables) {
		s.probes = make([]probe, len(ix.tables))
	}
	probes := s.probes[:len(ix.tables)]
	for t := range probes {
		p := h.Permute64(t, q)
		mask := h.KeyMask64(t)
		tb := &ix.tables[t]
		d := p & mask >> tb.shift
		probes[t] = probe{p: p, lo: p & mask, hi: p | ^mask, block: int(tb.dir[d]), end: int(tb.dir[d+1])}
	}
	var touch byte
	for t := range probes {
		tb := &ix.tables[t]
		pr := &probes[t]
		i := tb.searchBlock(pr.lo, pr.block, pr.end)
		pr.block = i
		if i < len(tb.last) && ix.data != nil {
			touch ^= ix.data[tb.off+tb.offs[i]]
		}
	}
	s.touched ^= touch
	for t := range probes {
		pr := &probes[t]
		tb := &ix.tables[t]
		for i := pr.block; i < len(tb.last); i++ {
			vals, err := ix.valuesUntil(t, i, pr.hi, &s.sc)
			if err != nil {
				return dst, err
			}
			for _, v := range vals {
				if v < pr.lo {
					continue
				}
				if v > pr.hi {
					break
				}
				if d := bits.OnesCount64(v ^ pr.p); d <= k && h.IsFirstPermuted64(t, pr.p, v) {
					dst = append(dst, Match{h.Unpermute64(t, v), d})
				}
			}
			if tb.last[i] >= pr.hi {
				break
			}
		}
	}
	return dst, nil
}

// probe is a query's search in one table.
type probe struct {
	p, lo, hi  uint64 // the permuted query and its key's range
	block, end int    // the blocks to search for lo, then the one found
}

// IDs appends to dst the ids stored with fingerprint fp. The ids alias the
// index's memory (or the Searcher's buffer), valid until the next call.
func (s *Searcher) IDs(dst [][]byte, fp uint64) ([][]byte, error) {
	ix := s.ix
	tb := &ix.tables[0]
	i := tb.firstBlock(fp)
	if i == len(tb.last) {
		return dst, ix.corrupt("fingerprint %016x found in a table is not in table 0", fp)
	}
	vals, err := ix.values(0, i, &s.sc)
	if err != nil {
		return dst, err
	}
	j, found := slices.BinarySearch(vals, fp)
	if !found {
		return dst, ix.corrupt("fingerprint %016x found in a table is not in table 0", fp)
	}
	b, err := ix.idBlock(i, &s.idsc)
	if err != nil {
		return dst, err
	}
	n := len(dst)
	for e := 0; e <= j; e++ {
		var ok bool
		dst, b, ok = nextIDs(b, dst[:n])
		if !ok {
			return dst[:n], ix.corrupt("id block %d is malformed", i)
		}
	}
	return dst, nil
}

// Result is one line of query output: query q, a stored id, the distance.
type Result struct {
	Q    uint32
	Dist int
	ID   []byte
}

// sortResults orders results by query, distance and id.
func sortResults(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int {
		if c := cmp.Compare(a.Q, b.Q); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
			return c
		}
		return bytes.Compare(a.ID, b.ID)
	})
}

// batchMatch is a match of query Q.
type batchMatch struct {
	Match
	Q uint32
}

// SearchBatch answers every query of qs at once (the batch mode): for each
// table it sorts the queries by their permuted value and merges them with
// the table in one pass, decoding only the blocks where some query's key
// can be. Tables are searched jobs at a time. The results, with their ids,
// are ordered by query, distance and id, as the online mode orders each
// query's; ids alias the index's memory.
func (ix *Index) SearchBatch(qs []uint64, k, jobs int) ([]Result, error) {
	if err := ix.checkK(k); err != nil {
		return nil, err
	}
	if len(qs) > 1<<32-1 {
		return nil, fmt.Errorf("%d queries in one batch: at most %d", len(qs), 1<<32-1)
	}
	jobs = max(jobs, 1)
	var mu sync.Mutex
	var all []batchMatch
	var firstErr error
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(jobs, len(ix.tables)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keyedBuf := make([]keyed, len(qs))
			tmp := make([]keyed, len(qs))
			var sorter keySorter
			var sc readScratch
			for t := range next {
				ms, err := ix.mergeTable(t, qs, k, keyedBuf, tmp, &sorter, &sc)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				all = append(all, ms...)
				mu.Unlock()
			}
		}()
	}
	for t := range ix.tables {
		next <- t
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return ix.resolve(all)
}

// mergeTable merges the sorted queries with table t.
func (ix *Index) mergeTable(t int, qs []uint64, k int, ks, tmp []keyed, sorter *keySorter, sc *readScratch) ([]batchMatch, error) {
	h := ix.Scheme
	tb := &ix.tables[t]
	mask := h.KeyMask64(t)
	for i, q := range qs {
		ks[i] = keyed{h.Permute64(t, q), uint32(i)}
	}
	ks = sorter.sort(ks, tmp, h.Tables[t].KeyBits)
	var out []batchMatch
	qi := 0
	for i := 0; i < len(tb.last) && qi < len(ks); i++ {
		if ks[qi].v&mask > tb.last[i] {
			// No pending query's key reaches this block: skip it, or
			// jump to the first block that can hold the next key.
			i = tb.firstBlock(ks[qi].v&mask) - 1
			continue
		}
		vals, err := ix.values(t, i, sc)
		if err != nil {
			return nil, err
		}
		next := ks[qi].v & mask // the smallest key still wanted
		for _, v := range vals {
			key := v & mask
			if key < next {
				continue
			}
			for qi < len(ks) && ks[qi].v&mask < key {
				qi++
			}
			if qi == len(ks) {
				break
			}
			next = ks[qi].v & mask
			for j := qi; j < len(ks) && ks[j].v&mask == key; j++ {
				p := ks[j].v
				if d := bits.OnesCount64(v ^ p); d <= k && h.IsFirstPermuted64(t, p, v) {
					out = append(out, batchMatch{Match{h.Unpermute64(t, v), d}, ks[j].i})
				}
			}
		}
	}
	return out, nil
}

// resolve looks up the ids of the matches in one pass over table 0 and the
// id blocks, and returns the results in order.
func (ix *Index) resolve(ms []batchMatch) ([]Result, error) {
	byFP := make([]keyed, len(ms))
	for i, m := range ms {
		byFP[i] = keyed{m.FP, uint32(i)}
	}
	sortKeyed(byFP, make([]keyed, len(ms)))
	var rs []Result
	var sc, idsc readScratch
	tb := &ix.tables[0]
	block := -1
	var vals []uint64
	var ids [][]byte // the ids of the block's fingerprints, one after another
	var starts []int // fingerprint j's ids are ids[starts[j]:starts[j+1]]
	for _, e := range byFP {
		m := ms[e.i]
		i := tb.firstBlock(m.FP)
		if i == len(tb.last) {
			return nil, ix.corrupt("fingerprint %016x found in a table is not in table 0", m.FP)
		}
		if i != block {
			var err error
			vals, err = ix.values(0, i, &sc)
			if err != nil {
				return nil, err
			}
			b, err := ix.idBlock(i, &idsc)
			if err != nil {
				return nil, err
			}
			if ix.data == nil {
				// Positioned reads reuse the buffer: keep the ids.
				b = bytes.Clone(b)
			}
			ids, starts = ids[:0], starts[:0]
			for range vals {
				starts = append(starts, len(ids))
				var ok bool
				ids, b, ok = nextIDs(b, ids)
				if !ok {
					return nil, ix.corrupt("id block %d is malformed", i)
				}
			}
			starts = append(starts, len(ids))
			block = i
		}
		j, found := slices.BinarySearch(vals, m.FP)
		if !found {
			return nil, ix.corrupt("fingerprint %016x found in a table is not in table 0", m.FP)
		}
		for _, id := range ids[starts[j]:starts[j+1]] {
			rs = append(rs, Result{Q: m.Q, Dist: m.Dist, ID: id})
		}
	}
	// By query and distance (a radix sort), then by id within each.
	order := make([]keyed, len(rs))
	for i, r := range rs {
		order[i] = keyed{uint64(r.Q)<<8 | uint64(r.Dist), uint32(i)}
	}
	sortKeyed(order, make([]keyed, len(rs)))
	sorted := make([]Result, len(rs))
	for i, o := range order {
		sorted[i] = rs[o.i]
	}
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j].v == order[i].v {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(sorted[i:j], func(a, b Result) int { return bytes.Compare(a.ID, b.ID) })
		}
		i = j
	}
	return sorted, nil
}
