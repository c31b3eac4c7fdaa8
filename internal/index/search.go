package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/neardup/neardup/internal/lsh"
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
			// The run of values with the key.
			lo := 0
			for lo < len(vals) && vals[lo] < pr.lo {
				lo++
			}
			hi := len(vals)
			for hi > lo && vals[hi-1] > pr.hi {
				hi--
			}
			for run := vals[lo:hi]; ; {
				j := near(run, pr.p, k)
				if j == len(run) {
					break
				}
				if v := run[j]; h.IsFirstPermuted64(t, pr.p, v) {
					dst = append(dst, Match{h.Unpermute64(t, v), bits.OnesCount64(v ^ pr.p)})
				}
				run = run[j+1:]
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
	vals, err := ix.valuesUntil(0, i, fp, &s.sc)
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
	ok := true
	for range j {
		if b, ok = skipIDs(b); !ok {
			break
		}
	}
	if ok {
		dst, _, ok = nextIDs(b, dst)
	}
	if !ok {
		return dst, ix.corrupt("id block %d is malformed", i)
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

// batchMatch is a stored fingerprint FP within Dist bits of query Q.
type batchMatch struct {
	Q, FP uint64
	Dist  int
}

// BatchResults are the answers of SearchBatch, by query, distance and id.
type BatchResults struct {
	hits []hit
	// Id x is arena[ends[x-1]:ends[x]] (from 0 for x = 0).
	arena []byte
	ends  []uint64
}

// hit is a result: query q, the distance and the number of the id.
type hit struct {
	q, dist, id uint32
}

// Len returns the number of results.
func (r *BatchResults) Len() int { return len(r.hits) }

// Result returns result i. Its id is valid while r is.
func (r *BatchResults) Result(i int) Result {
	h := r.hits[i]
	return Result{Q: h.q, Dist: int(h.dist), ID: r.id(h.id)}
}

func (r *BatchResults) id(x uint32) []byte {
	start := uint64(0)
	if x > 0 {
		start = r.ends[x-1]
	}
	return r.arena[start:r.ends[x]]
}

// SearchBatch answers every query of qs at once (the batch mode): for each
// table it sorts the distinct queries by their permuted value and merges
// them with the table in one pass, decoding only the blocks where some
// query's key can be. Tables are searched jobs at a time. The results, with
// their ids, are ordered by query, distance and id, as the online mode
// orders each query's; ids alias the index's memory.
func (ix *Index) SearchBatch(qs []uint64, k, jobs int) (*BatchResults, error) {
	if err := ix.checkK(k); err != nil {
		return nil, err
	}
	if len(qs) > 1<<32-1 {
		return nil, fmt.Errorf("%d queries in one batch: at most %d", len(qs), 1<<32-1)
	}
	if len(qs) == 0 {
		return &BatchResults{}, nil
	}
	// The queries by fingerprint, and the distinct fingerprints.
	byFP := make([]keyed, len(qs))
	for i, q := range qs {
		byFP[i] = keyed{q, uint32(i)}
	}
	sortKeyed(byFP, make([]keyed, len(qs)))
	distinct := make([]uint64, 0, len(qs))
	for i, e := range byFP {
		if i == 0 || e.v != byFP[i-1].v {
			distinct = append(distinct, e.v)
		}
	}
	// The blocks of table 0 whose checksums its merge verified: resolve
	// reads them again.
	checked := make([]uint64, (len(ix.tables[0].last)+63)/64)
	workers := make([]batchWorker, min(max(jobs, 1), len(ix.tables)))
	errs := make([]error, len(ix.tables))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bw := &workers[w]
			bw.words = make([]uint64, len(distinct))
			bw.tmp = make([]uint64, len(distinct))
			for t := range next {
				var c []uint64
				if t == 0 {
					c = checked
				}
				errs[t] = ix.mergeTable(t, distinct, k, bw, c)
			}
		}()
	}
	for t := range ix.tables {
		next <- t
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var all []batchMatch
	for _, bw := range workers {
		all = append(all, bw.out...)
	}
	return ix.resolve(all, byFP, checked)
}

// batchWorker is what a goroutine of SearchBatch needs.
type batchWorker struct {
	words, tmp []uint64
	sorter     sorter
	sc         readScratch
	out        []batchMatch
}

// mergeTable appends the matches that table t finds for the queries qs
// (distinct) to w.out. It sorts the permuted queries by their keys and
// merges them with the table's values, a block at a time, skipping the
// blocks no query's key reaches: each query is checked against the run of
// values that share its key. The blocks it reads get their bits set in
// checked, if not nil.
func (ix *Index) mergeTable(t int, qs []uint64, k int, w *batchWorker, checked []uint64) error {
	h := ix.Scheme
	tb := &ix.tables[t]
	mask := h.KeyMask64(t)
	ps := w.words
	for i, q := range qs {
		ps[i] = h.Permute64(t, q)
	}
	ps = w.sorter.words(ps, w.tmp, h.Tables[t].KeyBits)
	qi := 0
	for i := 0; i < len(tb.last) && qi < len(ps); i++ {
		last := tb.last[i]
		if ps[qi]&mask > last {
			// No pending query's key reaches this block: jump to the
			// first block that can hold the next one.
			i = tb.firstBlock(ps[qi]&mask) - 1
			continue
		}
		// Queries qi to qe-1 have keys that start in this block: decode
		// it as far as the last of them reaches.
		qe := qi + 1
		for qe < len(ps) && ps[qe]&mask <= last {
			qe++
		}
		vals, err := ix.valuesUntil(t, i, ps[qe-1]|^mask, &w.sc)
		if err != nil {
			return err
		}
		if checked != nil {
			checked[i/64] |= 1 << (i % 64)
		}
		// Each run of queries with one key, against the run of values
		// vals[lo:hi] with that key.
		lo := 0
		j := qi
		for j < qe {
			key := ps[j] & mask
			je := j + 1
			for je < qe && ps[je]&mask == key {
				je++
			}
			for lo < len(vals) && vals[lo] < key {
				lo++
			}
			hi := lo
			for hi < len(vals) && vals[hi]&mask == key {
				hi++
			}
			for run, group := vals[lo:hi], ps[j:je]; len(run) > 0; {
				// The first query with a value within k bits: its
				// matches, then the queries after it.
				x, y := nearAny(run, group, k)
				if x == len(group) {
					break
				}
				w.out = appendNear(w.out, h, t, run[y:], group[x], k)
				group = group[x+1:]
			}
			qi, j = j, je
		}
		// The queries done: all but the last key's if its values go on
		// in the next block.
		if ps[qi]|^mask <= last {
			qi = qe
		}
	}
	return nil
}

// appendNear appends the values of run (which share p's key in table t)
// within k bits of p, of the pairs that table t is the first to find.
func appendNear(dst []batchMatch, h *lsh.Hamming, t int, run []uint64, p uint64, k int) []batchMatch {
	for {
		j := near(run, p, k)
		if j == len(run) {
			return dst
		}
		v := run[j]
		if h.IsFirstPermuted64(t, p, v) {
			dst = append(dst, batchMatch{h.Unpermute64(t, p), h.Unpermute64(t, v), bits.OnesCount64(v ^ p)})
		}
		run = run[j+1:]
	}
}

// resolve looks up the ids of the matches in one pass over table 0 and the
// id blocks, gives them to every query of their fingerprint (byQuery holds
// the queries' fingerprints and numbers, by fingerprint), and puts the
// results in order. The checksums of the blocks of table 0 with their bits
// set in checked were verified by its merge.
func (ix *Index) resolve(ms []batchMatch, byQuery []keyed, checked []uint64) (*BatchResults, error) {
	r := &BatchResults{}
	order := make([]keyed, len(ms))
	tmp := make([]keyed, len(ms))
	for i, m := range ms {
		order[i] = keyed{m.FP, uint32(i)}
	}
	sortKeyed(order, tmp)
	// The ids of match m are ids idRange[m][0] to idRange[m][1]-1.
	idRange := make([][2]uint32, len(ms))
	var sc, idsc readScratch
	var entries [][]byte // the id block's entries, up to the last one wanted
	tb := &ix.tables[0]
	for start := 0; start < len(order); {
		// The matches in block i, and the block's values up to theirs.
		i := tb.firstBlock(order[start].v)
		if i == len(tb.last) {
			return nil, ix.corrupt("fingerprint %016x found in a table is not in table 0", order[start].v)
		}
		end := start + 1
		for end < len(order) && order[end].v <= tb.last[i] {
			end++
		}
		vals, err := ix.decodeBlock(0, i, order[end-1].v, checked[i/64]&(1<<(i%64)) != 0, &sc)
		if err != nil {
			return nil, err
		}
		b, err := ix.idBlock(i, &idsc)
		if err != nil {
			return nil, err
		}
		entries = entries[:0]
		j := 0
		for _, e := range order[start:end] {
			for j < len(vals) && vals[j] < e.v {
				j++
			}
			if j == len(vals) || vals[j] != e.v {
				return nil, ix.corrupt("fingerprint %016x found in a table is not in table 0", e.v)
			}
			for len(entries) <= j {
				entry := b
				var ok bool
				if b, ok = skipIDs(b); !ok {
					return nil, ix.corrupt("id block %d is malformed", i)
				}
				entries = append(entries, entry[:len(entry)-len(b)])
			}
			// Copied: positioned reads reuse the block's buffer.
			idRange[e.i][0] = uint32(len(r.ends))
			r.appendIDs(entries[j])
			idRange[e.i][1] = uint32(len(r.ends))
		}
		start = end
	}
	// Every query of each match's fingerprint gets its ids.
	for i, m := range ms {
		order[i] = keyed{m.Q, uint32(i)}
	}
	sortKeyed(order, tmp)
	q := 0
	for _, e := range order {
		m := &ms[e.i]
		for q < len(byQuery) && byQuery[q].v < m.Q {
			q++
		}
		for x := q; x < len(byQuery) && byQuery[x].v == m.Q; x++ {
			for id := idRange[e.i][0]; id < idRange[e.i][1]; id++ {
				r.hits = append(r.hits, hit{byQuery[x].i, uint32(m.Dist), id})
			}
		}
	}
	r.sort(len(byQuery))
	return r, nil
}

// appendIDs parses an id block's entry into the arena.
func (r *BatchResults) appendIDs(entry []byte) {
	for {
		h, k := binary.Uvarint(entry)
		end := k + int(h>>1)
		r.arena = append(r.arena, entry[k:end]...)
		r.ends = append(r.ends, uint64(len(r.arena)))
		entry = entry[end:]
		if h&1 == 0 {
			return
		}
	}
}

// sort orders the hits of queries 0 to n-1 by query (a counting sort), then
// by distance and id.
func (r *BatchResults) sort(n int) {
	starts := make([]uint32, n+1)
	for _, h := range r.hits {
		starts[h.q+1]++
	}
	prefixSums(starts)
	sorted := make([]hit, len(r.hits))
	for _, h := range r.hits {
		sorted[starts[h.q]] = h
		starts[h.q]++
	}
	r.hits = sorted
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j].q == sorted[i].q {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(sorted[i:j], func(a, b hit) int {
				if c := cmp.Compare(a.dist, b.dist); c != 0 {
					return c
				}
				return bytes.Compare(r.id(a.id), r.id(b.id))
			})
		}
		i = j
	}
}
