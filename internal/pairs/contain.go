package pairs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/band"
	"github.com/neardup/neardup/internal/bandindex"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Containment band records (band --containment T), "key TAB id TAB role TAB
// size", are grouped by key like any band records, but a bucket's pairs are
// those of a probe (role p) with every other record of the bucket whose
// document is large enough to hold the probe's at T (size ≥ t =
// ceil(T·|probe|), band.ContainNeed); two records that are not probes make
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
		if s, _ := h.Header.Get("scheme"); s != band.SchemeContainment {
			continue
		}
		v, _ := h.Header.Get(band.ContainmentKey)
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
			m := containMember{id: r.ID, probe: r.Probe, new: isNew, size: r.Size, need: band.ContainNeed(c.threshold, r.Size)}
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
func runContain(ctx context.Context, opt Options, threshold float64, sc *stream.Scanner, out *stream.Output, st *stats) error {
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
		return c.numbered(ctx, r, jobs(&opt), out.W)
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
	return nil
}

// numbered holds every record in memory as numbers, like runMemory: the
// key, the document's number and whether it probes, 24 bytes a record
// (48 while they are sorted), and per distinct id its length, its size
// and about 60 bytes. A pair comes up once for each key of the probing
// document's prefix that the other holds, so that the pairs tried are many
// times the pairs (6.6 million for 63,000 on the containment bench):
// they are made document by document, for each probing document A the
// buckets of its probes in turn, and a document already paired with A is
// marked (a stamp per document), so that each pair is kept once or twice
// (from A's probes and from B's), 8 bytes each, sorted and written at the
// end.
func (c *containBuckets) numbered(ctx context.Context, r *bandReader, jobs int, w io.Writer) error {
	index := map[string]uint32{}
	var ids []string
	var sizes []uint64
	var entries []entry
	var rec record.ContainBand
	// The reader parses each record once, into rec.
	r.parse = func(line []byte, b *bandRecord) error {
		if err := record.ParseContainBand(&rec, line); err != nil {
			return err
		}
		b.key, b.id = rec.Key, rec.ID
		return nil
	}
	var prev []byte
	d := uint32(0)
	for {
		b, err := r.next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		// band writes a document's records one after another: most
		// records are of the id before.
		if prev == nil || !bytes.Equal(rec.ID, prev) {
			var seen bool
			d, seen = index[string(rec.ID)]
			if !seen {
				if len(ids) == 1<<32-1 {
					return fmt.Errorf("more than %d distinct ids: use --sorted", 1<<32-1)
				}
				d = uint32(len(ids))
				ids = append(ids, string(rec.ID))
				sizes = append(sizes, rec.Size)
				index[ids[d]] = d
			}
			prev = []byte(ids[d])
		}
		if sizes[d] != rec.Size {
			return record.Errorf(r.sc.Pos(), "id %s comes with sizes %d and %d", rec.ID, sizes[d], rec.Size)
		}
		probe := uint32(0)
		if rec.Probe {
			probe = 1
		}
		entries = append(entries, entry{key: containKey(rec.Key), doc: d, table: probe})
		if c.st.records%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	index = nil
	order, rank := rankIDs(ids, jobs)
	need := make([]uint64, len(ids))
	ranked := make([]uint64, len(ids))
	for d, s := range sizes {
		ranked[rank[d]] = s
		need[rank[d]] = band.ContainNeed(c.threshold, s)
	}
	sizes = ranked
	for i := range entries {
		entries[i].doc = rank[entries[i].doc]
	}
	rank = nil
	sortEntries(entries, jobs)
	entries = c.distinct(entries)
	// The buckets (runs of a key) that hold a probe and another document,
	// by their first entry; each probe as its document and bucket.
	var starts, ends []uint32
	var probes []docBucket
	for i := 0; i < len(entries); {
		j := i + 1
		for j < len(entries) && entries[j].key == entries[i].key {
			j++
		}
		c.st.buckets++
		c.largest = max(c.largest, j-i)
		if j-i >= 2 {
			n, bucket := len(probes), uint32(len(starts))
			for _, e := range entries[i:j] {
				if e.table != 0 {
					probes = append(probes, docBucket{e.doc, bucket})
				}
			}
			if len(probes) > n {
				starts, ends = append(starts, uint32(i)), append(ends, uint32(j))
			}
		}
		i = j
	}
	sortByDoc(probes, len(ids))
	stamp := make([]uint32, len(ids)) // A+1 once paired with A
	var pairs []uint64
	for i, p := range probes {
		a := p.doc
		for _, e := range entries[starts[p.bucket]:ends[p.bucket]] {
			q := e.doc
			if q == a || sizes[q] < need[a] || stamp[q] == a+1 {
				continue
			}
			stamp[q] = a + 1
			pairs = append(pairs, uint64(min(a, q))<<32|uint64(max(a, q)))
		}
		c.st.made.Add(int64(ends[p.bucket] - starts[p.bucket]))
		if i%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	entries = nil
	return writeRanked(w, pairs, ids, order, jobs)
}

// distinct drops the repeats of a (key, document) from entries sorted by
// key and document, counting them: a document that probes a key once
// probes it.
func (c *containBuckets) distinct(entries []entry) []entry {
	out := entries[:0]
	for _, e := range entries {
		if n := len(out); n > 0 && out[n-1].key == e.key && out[n-1].doc == e.doc {
			c.st.duplicates++
			out[n-1].table |= e.table
			continue
		}
		out = append(out, e)
	}
	return out
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
