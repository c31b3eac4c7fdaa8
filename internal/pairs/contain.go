package pairs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"

	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Containment band records (band --containment T), "key TAB id TAB role TAB
// size", are grouped by key like any band records, but a bucket's pairs are
// those of a probe (role p) with every other record of the bucket whose
// document is large enough to hold the probe's at T (size ≥ t =
// ceil(T·|probe|), record.ContainNeed); two records that are not probes make
// no pair. Every pair (A, B) with c(A,B) ≥ T is then made in some bucket
// (the prefix filter, band/contain.go). Within pairs a record's "id" is
// its tail, "id TAB role TAB size" (ids hold no TAB, so the tails sort as
// the ids do), which is also what a band index stores as its id.
//
// Containment buckets are never capped: a cap would lose candidates. An
// explicit --max-bucket is refused; the largest bucket and the pairs tried
// are reported.
//
// Memory: the records (their bytes and 16 more each) in memory, or with
// Sorted the largest bucket; the pair buffer (MemoryBytes), spilled to
// sorted runs past it.

// containScheme returns the containment threshold of the input's band
// header (0 when it has none, or holds other band keys).
func containScheme(src *stream.Lines) (float64, error) {
	headers, _, err := src.Peek()
	if err != nil {
		return 0, err
	}
	for _, h := range headers {
		if h.Header.Stage != "band" {
			continue
		}
		if s, _ := h.Header.Get(record.SchemeKey); s != record.SchemeContainment {
			continue
		}
		v, _ := h.Header.Get(record.ContainmentKey)
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || !(t > 0 && t <= 1) {
			return 0, record.Errorf(h.Pos, "band header with containment=%q: want a containment above 0 and at most 1", v)
		}
		return t, nil
	}
	return 0, nil
}

// parseContain reads a containment band record's key and tail.
func parseContain(line []byte, b *bandRecord) error {
	var c record.ContainBand
	if err := record.ParseContainBand(&c, line); err != nil {
		return err
	}
	b.key, b.id = c.Key, line[len(c.Key)+1:]
	return nil
}

// containBuckets pairs buckets of containment records.
type containBuckets struct {
	threshold float64
	sp        *spiller
	st        *stats
	lookup    *bandindex.Lookup // with Against
	ms        []containMember
	tails     [][]byte
	largest   int
}

// containMember is a record of a bucket.
type containMember struct {
	id         []byte
	probe, new bool
	size, need uint64
}

// bucket pairs the records of one key: news are the tails of the batch
// (all the input without Against), ascending by id, repeats allowed.
func (c *containBuckets) bucket(key []byte, news [][]byte) error {
	c.ms = c.ms[:0]
	add := func(tails [][]byte, isNew bool) error {
		for _, t := range tails {
			var r record.ContainBand
			if err := record.ParseContainTail(&r, t); err != nil {
				return fmt.Errorf("key %s: %v", key, err)
			}
			m := containMember{id: r.ID, probe: r.Probe, new: isNew, size: r.Size, need: record.ContainNeed(c.threshold, r.Size)}
			c.ms = append(c.ms, m)
		}
		return nil
	}
	if err := add(news, true); err != nil {
		return err
	}
	if c.lookup != nil {
		old, err := c.lookup.IDs(key, 0)
		if err != nil {
			return err
		}
		if err := add(old, false); err != nil {
			return err
		}
	}
	c.st.buckets++
	c.largest = max(c.largest, len(c.ms))
	for i := range c.ms {
		p := &c.ms[i]
		if !p.probe {
			continue
		}
		for j := range c.ms {
			q := &c.ms[j]
			if q.size < p.need || (!p.new && !q.new) {
				continue
			}
			switch cmp := bytes.Compare(p.id, q.id); {
			case cmp < 0:
				if err := c.sp.add(p.id, q.id); err != nil {
					return err
				}
			case cmp > 0:
				if err := c.sp.add(q.id, p.id); err != nil {
					return err
				}
			default:
				if p.size != q.size {
					return fmt.Errorf("key %s: id %s comes with sizes %d and %d", key, p.id, p.size, q.size)
				}
			}
		}
		c.st.made.Add(int64(len(c.ms)))
	}
	return nil
}

// runContain pairs containment band records, in memory, --sorted or
// --against an index.
func runContain(ctx context.Context, opt Options, threshold float64, src stream.Source, sc *stream.Scanner, out *stream.Output, st *stats) error {
	sp := newSpiller(&opt)
	defer sp.runs.Remove()
	c := &containBuckets{threshold: threshold, sp: sp, st: st}
	summary := out.Summary
	out.Summary = func(w io.Writer) {
		summary(w)
		c.report(w)
	}
	parse := parseContain
	if opt.Against != "" {
		ix, p, err := openAgainst(&opt, sc, out, (*bandindex.Index).CheckQueryHeader, parseContain)
		if err != nil {
			return err
		}
		defer ix.Close()
		c.lookup, parse = ix.NewLookup(), p
	}
	r := &bandReader{sc: sc, out: out, opt: &opt, st: st, parse: parse}
	var err error
	switch {
	case opt.Against == "" && !opt.Sorted:
		return c.numbered(ctx, src, &opt, out)
	case opt.Sorted:
		err = scanSorted(ctx, r, st, 1, func(key []byte, _ int, ms []member) error {
			c.tails = c.tails[:0]
			for _, m := range ms {
				c.tails = append(c.tails, m.id)
			}
			return c.bucket(key, c.tails)
		})
	default:
		err = holdBuckets(ctx, r, st, c.bucket)
	}
	if err != nil {
		return err
	}
	return sp.finish(out.W)
}

// reportContain says that containment buckets were not capped, and their
// size.
func (c *containBuckets) report(w io.Writer) {
	fmt.Fprintf(w, "pairs: containment keys: %d bucket(s), the largest %d records, none capped (a cap would lose candidates); %d pairs tried\n",
		c.st.buckets, c.largest, c.st.made.Load())
}

// checkContainCap refuses a cap on containment buckets.
func checkContainCap(opt *Options) error {
	if opt.MaxBucketSet && opt.MaxBucket != 0 {
		return status.Usagef("--max-bucket %d: the input holds containment keys (band --containment), whose buckets are never capped: a cap would lose pairs with containment above the threshold", opt.MaxBucket)
	}
	if opt.RepsSet {
		return status.Usagef("--reps %d: the input holds containment keys (band --containment), whose buckets are never capped", opt.Reps)
	}
	return nil
}

// numbered holds every record in memory as numbers, like runMemory: the
// key, the document's number and whether it probes, 24 bytes a record,
// and per distinct id its length, its size and about 60 bytes. The
// workers parse the records chunk by chunk, each chunk's in keyParts parts
// by the leading bits of their keys (containRead); the parts are then
// sorted, and their buckets found, one part at a time on jobs goroutines
// (containPart), holding a part's records twice, not all of them. A pair
// comes up once for each key of the probing document's prefix that the
// other holds, so that the pairs tried are many times the pairs (6.6
// million for 63,000 on the containment bench): they are made document by
// document, for each probing document A the buckets of its probes in turn
// (the documents of each bucket that pairs, 4 bytes each, one after
// another), and a document already paired with A is marked (a stamp per
// document), so that each pair is kept once or twice (from A's probes and
// from B's), 8 bytes each, sorted and written at the end. The probing
// documents are shared among jobs goroutines, each with its own stamps.
func (c *containBuckets) numbered(ctx context.Context, src stream.Source, opt *Options, out *stream.Output) error {
	jobs := opt.Jobs
	read, err := containRead(ctx, src, opt, out, c.st)
	if err != nil {
		return err
	}
	ids, sizes := read.ids, read.sizes
	order, rank := rankIDs(ids, jobs)
	need := make([]uint64, len(ids))
	ranked := make([]uint64, len(ids))
	for d, s := range sizes {
		ranked[rank[d]] = s
		need[rank[d]] = record.ContainNeed(c.threshold, s)
	}
	sizes = ranked
	// About one bucket of the sort per record, as sortEntries does.
	sub := max(bits.Len(uint(read.entries))-1-keyPartBits, 0)
	parts := make([]containPart, keyParts)
	parallelFor(keyParts, jobs, func(p int) { parts[p] = partBuckets(read.chunks, p, rank, sub) })
	read, rank = nil, nil
	// The parts' buckets, one after another, are in key order.
	var nDocs, nStarts, nProbes int
	for _, p := range parts {
		nDocs, nStarts, nProbes = nDocs+len(p.docs), nStarts+len(p.starts), nProbes+len(p.probes)
	}
	docs, starts, probes := make([]uint32, 0, nDocs), make([]uint32, 0, nStarts+1), make([]docBucket, 0, nProbes)
	for i := range parts {
		p := &parts[i]
		base, at := uint32(len(starts)), uint32(len(docs))
		for _, s := range p.starts {
			starts = append(starts, at+s)
		}
		for _, q := range p.probes {
			probes = append(probes, docBucket{q.doc, base + q.bucket})
		}
		docs = append(docs, p.docs...)
		c.st.buckets += p.buckets
		c.st.duplicates += p.duplicates
		c.largest = max(c.largest, p.largest)
		*p = containPart{}
	}
	starts = append(starts, uint32(len(docs)))
	parts = nil
	sortByDoc(probes, len(ids))
	shares := splitProbes(probes, starts, jobs)
	made := make([][]uint64, len(shares))
	parallelFor(len(shares), jobs, func(k int) {
		stamp := make([]uint32, len(ids)) // A+1 once paired with A
		var pairs []uint64
		var tried int64
		for i, p := range shares[k] {
			a := p.doc
			bucket := docs[starts[p.bucket]:starts[p.bucket+1]]
			for _, q := range bucket {
				if q == a || sizes[q] < need[a] || stamp[q] == a+1 {
					continue
				}
				stamp[q] = a + 1
				pairs = append(pairs, uint64(min(a, q))<<32|uint64(max(a, q)))
			}
			if tried += int64(len(bucket)); i%(1<<12) == 0 {
				c.st.made.Add(tried)
				tried = 0
				if ctx.Err() != nil {
					return
				}
			}
		}
		c.st.made.Add(tried)
		made[k] = pairs
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	parallelFor(len(made), jobs, func(i int) { slices.Sort(made[i]) })
	return writeRanked(out.W, made, ids, order, jobs)
}

// keyParts is the number of parts the records are cut into by the
// leading keyPartBits bits of their keys.
const (
	keyPartBits = 8
	keyParts    = 1 << keyPartBits
)

// keyPart returns the part of a key.
func keyPart(k key128) int { return int(k.lo >> (64 - keyPartBits)) }

// containPart is what a part of the records comes to: its buckets that
// hold a probe and another document, as the documents of each (docs,
// ascending in each bucket; bucket i is docs[starts[i]:starts[i+1]], the
// last's end is len(docs)), and their probes, by bucket; the count of its
// buckets, the largest and the repeated records.
type containPart struct {
	docs, starts        []uint32
	probes              []docBucket
	buckets, duplicates int64
	largest             int
}

// partBuckets sorts part p of the chunks' records by key, then document
// (renumbered by rank), and finds its buckets. The records are scattered
// by the sub bits of their keys after the part's into about as many
// buckets as records, each then sorted by comparison (sortEntries).
func partBuckets(chunks []containChunk, p int, rank []uint32, sub int) containPart {
	n := 0
	for _, c := range chunks {
		n += int(c.parts[p+1] - c.parts[p])
	}
	a := make([]entry, n)
	counts := make([]uint32, 1<<sub+1)
	// The bits after the part's: 0 when sub is 0.
	next := func(k key128) uint64 { return k.lo << keyPartBits >> (64 - sub) }
	if sub == 0 {
		next = func(key128) uint64 { return 0 }
	}
	for _, c := range chunks {
		for _, e := range c.entries[c.parts[p]:c.parts[p+1]] {
			counts[next(e.key)+1]++
		}
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	for _, c := range chunks {
		for _, e := range c.entries[c.parts[p]:c.parts[p+1]] {
			k := next(e.key)
			e.doc = rank[e.doc]
			a[counts[k]] = e
			counts[k]++
		}
	}
	start := uint32(0)
	for _, end := range counts[:len(counts)-1] {
		if end-start > 1 {
			slices.SortFunc(a[start:end], compareEntries)
		}
		start = end
	}
	var cp containPart
	a, cp.duplicates = distinct(a)
	// The buckets that pair, counted first to hold them in arrays of
	// their size.
	docs, probes, buckets := 0, 0, 0
	eachBucket(a, func(b []entry) {
		cp.buckets++
		cp.largest = max(cp.largest, len(b))
		if n := probesOf(b); n > 0 && len(b) >= 2 {
			docs, probes, buckets = docs+len(b), probes+n, buckets+1
		}
	})
	cp.docs, cp.probes, cp.starts = make([]uint32, 0, docs), make([]docBucket, 0, probes), make([]uint32, 0, buckets)
	eachBucket(a, func(b []entry) {
		if len(b) < 2 || probesOf(b) == 0 {
			return
		}
		bucket := uint32(len(cp.starts))
		cp.starts = append(cp.starts, uint32(len(cp.docs)))
		for _, e := range b {
			cp.docs = append(cp.docs, e.doc)
			if e.table != 0 {
				cp.probes = append(cp.probes, docBucket{e.doc, bucket})
			}
		}
	})
	return cp
}

// eachBucket calls fn with each run of entries of one key.
func eachBucket(a []entry, fn func([]entry)) {
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && a[j].key == a[i].key {
			j++
		}
		fn(a[i:j])
		i = j
	}
}

// probesOf returns the number of probes among entries.
func probesOf(entries []entry) int {
	n := 0
	for _, e := range entries {
		n += int(e.table)
	}
	return n
}

// splitProbes cuts probes, sorted by document, into up to jobs runs of
// whole documents with about as many documents of their buckets to go
// through each.
func splitProbes(probes []docBucket, starts []uint32, jobs int) [][]docBucket {
	size := func(p docBucket) int64 { return int64(starts[p.bucket+1] - starts[p.bucket]) }
	var total int64
	for _, p := range probes {
		total += size(p)
	}
	var shares [][]docBucket
	from, sum := 0, int64(0)
	for i, p := range probes {
		sum += size(p)
		if len(shares) < jobs-1 && sum*int64(jobs) >= total*int64(len(shares)+1) &&
			(i+1 == len(probes) || probes[i+1].doc != p.doc) {
			shares = append(shares, probes[from:i+1])
			from = i + 1
		}
	}
	return append(shares, probes[from:])
}

// distinct drops the repeats of a (key, document) from entries sorted by
// key and document, and returns how many it dropped: a document that
// probes a key once probes it.
func distinct(entries []entry) ([]entry, int64) {
	out := entries[:0]
	for _, e := range entries {
		if n := len(out); n > 0 && out[n-1].key == e.key && out[n-1].doc == e.doc {
			out[n-1].table |= e.table
			continue
		}
		out = append(out, e)
	}
	return out, int64(len(entries) - len(out))
}

// docBucket is a probe: its document and the bucket of its key.
type docBucket struct{ doc, bucket uint32 }

// sortByDoc sorts probes by document (a counting sort, stable: each
// document's buckets stay in key order) among docs documents.
func sortByDoc(probes []docBucket, docs int) {
	counts := make([]uint32, docs+1)
	for _, p := range probes {
		counts[p.doc+1]++
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	sorted := make([]docBucket, len(probes))
	for _, p := range probes {
		sorted[counts[p.doc]] = p
		counts[p.doc]++
	}
	copy(probes, sorted)
}

// containKey maps a containment key, a shingle hash in 16 hex digits, to a
// key128 without hashing it (its high word marks it apart from the 20-digit
// band keys and from the hashed ones); any other key goes to parseKey.
func containKey(k []byte) key128 {
	if h, ok := record.ParseLowerHex64(k); ok {
		return key128{1 << 62, h}
	}
	return parseKey(k)
}
