package pairs

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
)

// bandRecord is one band record: MinHash "key TAB id", or Hamming "key TAB id TAB
// fingerprint" with the key's table.
type bandRecord struct {
	key, id []byte
	table   int
	fp      simhash.Fingerprint
}

// bandReader reads band records from a scanner with parse, reporting bad
// lines (or skipping them under SkipBad) and counting the records.
type bandReader struct {
	sc    *stream.Scanner
	out   *stream.Output
	opt   *Options
	st    *stats
	parse func(line []byte, b *bandRecord) error
	rec   bandRecord
}

// next returns the next record, valid until the next call, or nil at the
// end of the input.
func (r *bandReader) next() (*bandRecord, error) {
	for r.sc.Scan() {
		if err := r.parse(r.sc.Line(), &r.rec); err != nil {
			if err := r.out.Bad(err, r.sc.Pos(), r.opt.SkipBad); err != nil {
				return nil, err
			}
			continue
		}
		r.st.records++
		r.out.Count(1)
		return &r.rec, nil
	}
	return nil, r.sc.Err()
}

// scheme is the kind of band records: nil for MinHash keys, the Hamming
// scheme for fingerprint tables.
type scheme struct{ h *lsh.Hamming }

func (s scheme) parse(line []byte, b *bandRecord) (err error) {
	if s.h == nil {
		b.key, b.id, err = record.ParseAnyBand(line)
		if err == nil && len(b.key)+1+len(b.id) < len(line) {
			var c record.ContainBand
			if record.ParseContainBand(&c, line) == nil {
				return record.Bad("a containment band record (band --containment) among band records without a containment band header: pairs needs the header (scheme=containment containment=T) to pair it")
			}
		}
		return err
	}
	b.key, b.id, b.table, b.fp, err = parseHammingBand(line, s.h)
	return err
}

// keep says whether two documents sharing a bucket of table t make a pair:
// always for MinHash keys; for Hamming tables when their fingerprints are
// within k bits and t is the first table that keys them alike, so that each
// pair comes from one bucket only.
func (s scheme) keep(t int, a, b simhash.Fingerprint) bool {
	return s.h == nil || simhash.Distance(a, b) <= s.h.K && s.h.IsFirst(t, a, b)
}

// member is a document of a bucket.
type member struct {
	id []byte
	fp simhash.Fingerprint
	sg signed // with --bbit: set by signMembers
}

// distinctMembers sorts a bucket by id and drops repeated ids, returning
// what is left and how many it dropped.
func distinctMembers(ms []member) ([]member, int) {
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.id, b.id) })
	n := len(ms)
	ms = slices.CompactFunc(ms, func(a, b member) bool { return bytes.Equal(a.id, b.id) })
	return ms, n - len(ms)
}

// pairBucket pairs the members of one bucket: it sorts them by id, drops
// repeated ids, and calls emit with every pair a < b that keep accepts (nil
// keeps all), stopping at the first error. With maxBucket > 0 a larger
// bucket is paired against its representatives, its maxBucket smallest ids
// (capPairs). It returns how many repeated ids it dropped and how many
// distinct ids the bucket held.
func pairBucket(ms []member, c bucketCap, st *stats, keep func(a, b *member) bool, emit func(a, b []byte) error) (repeated, distinct int, err error) {
	ms, repeated = distinctMembers(ms)
	distinct = len(ms)
	var made *atomic.Int64
	if st != nil {
		st.noteCap(distinct, c)
		made = &st.made
	}
	err = capPairs(len(ms), c, made, func(a, b int) error {
		if keep != nil && !keep(&ms[a], &ms[b]) {
			return nil
		}
		return emit(ms[a].id, ms[b].id)
	})
	return repeated, distinct, err
}

// capPairs calls fn(a, b) for the pairs a < b of the n ids of a bucket
// (ascending) that c keeps: every pair of a bucket c does not cap;
// otherwise, as if the ids came in order, each is paired with every id
// before it while the bucket holds at most c.max ids, and past that with
// its c.reps smallest ids (its representatives) only: about c.max²/2 +
// c.reps·n pairs, not n²/2. Which pairs an id has depends only on the ids
// before it, so that a bucket paired batch by batch in arrival order gets
// the pairs of a bucket paired at once. It adds the pairs tried to made
// (when not nil) as it goes, for the progress report.
func capPairs(n int, c bucketCap, made *atomic.Int64, fn func(a, b int) error) error {
	reps, whole := c.of(n), min(n, c.max)
	for a := range n {
		end := n
		if a >= reps {
			end = whole // past the representatives: within the first c.max
		}
		if a+1 >= end {
			break
		}
		for b := a + 1; b < end; b++ {
			if err := fn(a, b); err != nil {
				return err
			}
		}
		if made != nil {
			made.Add(int64(end - 1 - a))
		}
	}
	return nil
}

// Bucket pairs the ids of one bucket: it sorts them bytewise, drops
// repeated ids, and calls emit with every pair, a < b, stopping at the
// first error; a bucket of more than opt.MaxBucket ids (when not 0) is
// capped as pairs --max-bucket and --reps cap it. It returns how many
// repeated ids it dropped, how many distinct ids the bucket held and how
// many of their pairs the cap left out. The Beam pipeline pairs its
// buckets with it too.
func Bucket(ids [][]byte, opt *Options, emit func(a, b []byte) error) (repeated, distinct int, notMade int64, err error) {
	ms := make([]member, len(ids))
	for i, id := range ids {
		ms[i].id = id
	}
	var st stats
	repeated, distinct, err = pairBucket(ms, opt.cap(), &st, nil, emit)
	return repeated, distinct, st.notMade, err
}

// scanSorted reads key-sorted band records one bucket at a time and calls
// fn with the key, table and members (in input order, valid until fn
// returns) of each bucket of at least least members (most buckets hold one
// document, which makes no pair); it counts every bucket in st. A key that
// comes after a greater one is an error with its place: the input is not
// sorted.
func scanSorted(ctx context.Context, r *bandReader, st *stats, least int, fn func(key []byte, table int, ms []member) error) error {
	var key, arena []byte
	var keyPos record.Pos
	var table int
	var ends []int
	var fps []simhash.Fingerprint
	var ms []member
	started := false
	buckets := 0
	flush := func() error {
		st.buckets++
		if len(ends) < least {
			return nil
		}
		ms = ms[:0]
		start := 0
		for i, e := range ends {
			ms = append(ms, member{id: arena[start:e], fp: fps[i]})
			start = e
		}
		if err := fn(key, table, ms); err != nil {
			return err
		}
		if buckets++; buckets%4096 == 0 {
			return ctx.Err()
		}
		return nil
	}
	sc := r.sc
	for {
		b, err := r.next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if !started || !bytes.Equal(b.key, key) {
			if started {
				if bytes.Compare(b.key, key) < 0 {
					return record.Errorf(sc.Pos(), "key %s comes after %s (%s): --sorted needs input sorted by key (LC_ALL=C sort -t$'\\t' -k1,1)", b.key, key, keyPos)
				}
				if err := flush(); err != nil {
					return err
				}
			}
			started = true
			key = append(key[:0], b.key...)
			keyPos, table = sc.Pos(), b.table
			arena, ends, fps = arena[:0], ends[:0], fps[:0]
		}
		arena = append(arena, b.id...)
		ends = append(ends, len(arena))
		fps = append(fps, b.fp)
	}
	if !started {
		return nil
	}
	if err := flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// runSorted reads key-sorted records one bucket at a time; the pairs go
// through the spilling buffer.
func runSorted(ctx context.Context, opt Options, s scheme, sc *stream.Scanner, out *stream.Output, st *stats) error {
	sp := newSpiller(&opt)
	defer sp.runs.Remove()
	r := &bandReader{sc: sc, out: out, opt: &opt, st: st, parse: s.parse}
	var table int
	aside := opt.aside
	keep := func(a, b *member) bool {
		return s.keep(table, a.fp, b.fp) && (aside == nil || !aside.judge(&aside.counts, &a.sg, &b.sg))
	}
	err := scanSorted(ctx, r, st, 2, func(key []byte, t int, ms []member) error {
		table = t
		if err := aside.signMembers(ms); err != nil {
			return err
		}
		repeated, _, err := pairBucket(ms, opt.capOfKey(key), st, keep, sp.put)
		st.duplicates += int64(repeated)
		return err
	})
	if err != nil {
		return err
	}
	return sp.finish(out.W)
}

// runMemory holds the band records within --memory and groups them: 24
// bytes per band record (48 while they are sorted), per distinct id its
// length plus about 90 bytes (and its fingerprint for Hamming tables), and
// 8 bytes per pair. Past --memory it spills them to sorted runs and pairs
// the runs merged (spill.go).
func runMemory(ctx context.Context, opt Options, s scheme, sc *stream.Scanner, out *stream.Output, st *stats) error {
	r := &bandReader{sc: sc, out: out, opt: &opt, st: st, parse: s.parse}
	c := newCollector(ctx, opt, s, out, st)
	defer c.remove()
	summary := out.Summary
	out.Summary = func(w io.Writer) {
		summary(w)
		c.report(w)
	}
	for {
		b, err := r.next()
		if err != nil {
			return err
		}
		if b == nil {
			break
		}
		if err := c.add(b, sc.Pos); err != nil {
			return err
		}
		if st.records%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return c.finish()
}

// collector holds the band records of the default mode (held) as they
// come, spilling them past what it may hold (bandRuns), and pairs them
// at the end: runMemory's records, read from the input, and Collector's,
// handed over by the stage that makes them.
type collector struct {
	ctx context.Context
	opt Options
	s   scheme
	out *stream.Output
	st  *stats
	h   *held
	br  *bandRuns
	// hold is what the records may hold of limit, the memory bound.
	hold, limit int64
	// sp is the pair buffer of records that spilled (finish).
	sp *spiller
}

func newCollector(ctx context.Context, opt Options, s scheme, out *stream.Output, st *stats) *collector {
	limit := opt.MemoryBytes
	if opt.HoldLimit != nil {
		opt.HoldLimit(limit)
	}
	br, hold := newBandRuns(&opt, s.h != nil, limit)
	return &collector{ctx: ctx, opt: opt, s: s, out: out, st: st, h: newHeld(s.h != nil), br: br, hold: hold, limit: limit}
}

// report says what spilled, if anything did.
func (c *collector) report(w io.Writer) {
	if c.br.spills > 0 {
		c.br.report(w, c.limit, c.sp)
	}
}

// add holds a record, spilling those held first when it would not fit.
func (c *collector) add(b *bandRecord, pos func() record.Pos) error {
	if !c.h.room(len(b.id), c.hold) {
		if err := c.br.spill(c.h); err != nil {
			return err
		}
		c.h.room(len(b.id), c.hold)
	}
	return c.h.add(b, pos)
}

// remove removes the runs spilled.
func (c *collector) remove() {
	c.br.runs.Remove()
	if c.sp != nil {
		c.sp.runs.Remove()
	}
}

// finish pairs the records and writes the pairs to the output.
func (c *collector) finish() error {
	opt, h, br, hold := c.opt, c.h, c.br, c.hold
	if opt.BBit != "" {
		// The b-bit signatures are read when the pairs are written: the
		// pairs held in memory leave them room.
		hold = max(hold-bbit.TableBytes(opt.BBit), hold/4)
	}
	if br.spills == 0 {
		done, err := pairHeld(c.ctx, opt, c.s, h, hold, br, c.out, c.st)
		if done || err != nil {
			return err
		}
	} else if len(h.entries) > 0 {
		if err := br.spill(h); err != nil {
			return err
		}
	}
	// The records are on disk: let their merge and the pair buffer have
	// the memory.
	*h = held{}
	debug.FreeOSMemory()
	c.sp = newSpiller(&opt)
	c.sp.limit = hold
	if err := br.pairs(&opt, c.s, c.st, c.sp, c.ctx.Err); err != nil {
		return err
	}
	if err := c.ctx.Err(); err != nil {
		return err
	}
	return c.sp.finish(c.out.W)
}

// pairHeld pairs the records held, none spilled, in memory: it sorts them,
// pairs each bucket as numbers and writes the pairs. When the pairs would
// outgrow what limit leaves, it spills the records as one run instead and
// says it is not done: the runs are to be merged and paired. The buckets
// are paired on every core (heldPairer), in spans of them dealt out in
// turn, so that what each core pairs, and whether the pairs fit, depends
// on jobs only.
func pairHeld(ctx context.Context, opt Options, s scheme, h *held, limit int64, br *bandRuns, out *stream.Output, st *stats) (done bool, err error) {
	ids, entries := h.ids, h.entries
	h.index = nil
	order, fps := h.rank(opt.Jobs)
	sortEntries(entries, opt.Jobs)
	room := limit - h.size(len(entries), len(ids), h.idBytes)
	var places *rankPlaces
	if opt.aside != nil {
		places = &rankPlaces{}
		room -= 4 * int64(len(ids))
	}
	before := st.snapshot()
	spans := bucketSpans(entries, opt.Jobs)
	ps := make([]*heldPairer, min(max(opt.Jobs, 1), len(spans)-1))
	var stop atomic.Bool
	for w := range ps {
		ps[w] = &heldPairer{ctx: ctx, opt: &opt, s: s, ids: ids, order: order, fps: fps, entries: entries, places: places, stop: &stop}
		if s.h == nil {
			// A pair two documents make in several buckets is tried
			// once (recentPairs) by a core: not for Hamming tables,
			// whose pairs come from one.
			ps[w].recent = newRecentPairs(len(entries) / len(ps))
		}
	}
	for _, p := range ps {
		p.room = room / int64(len(ps))
		if p.recent != nil {
			p.room -= p.recent.bytes()
		}
	}
	parallelFor(len(ps), len(ps), func(w int) {
		for i := w; i+1 < len(spans) && !stop.Load(); i += len(ps) {
			if err := ps[w].pair(spans[i], spans[i+1], &st.made); err != nil {
				ps[w].err = err
				stop.Store(true)
			}
		}
	})
	parts := make([][]uint64, len(ps))
	full := false
	for w, p := range ps {
		if p.err == errFull {
			full = true
		} else if p.err != nil {
			return false, p.err
		}
		parts[w] = p.pairs
	}
	if full {
		// Pair the records as spilled ones instead, from the start.
		st.restore(before)
		return false, br.write(h, order, fps)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	for _, p := range ps {
		st.add(&p.st)
		if opt.aside != nil {
			opt.aside.counts.Add(p.aside)
		}
	}
	parallelFor(len(ps), len(ps), func(w int) { ps[w].sort() })
	ps = nil
	h.entries = nil
	return true, writeRanked(out.W, parts, ids, order, opt.Jobs)
}

// bucketSpans cuts the sorted entries into spans of whole buckets, about
// 16 for each of jobs (at least 1<<12 entries each): it returns the
// spans' starts and the end.
func bucketSpans(entries []entry, jobs int) []int {
	size := max(len(entries)/(16*max(jobs, 1)), 1<<12)
	spans := []int{0}
	for i := size; i < len(entries); i += size {
		for i < len(entries) && entries[i].key == entries[i-1].key {
			i++
		}
		if i < len(entries) {
			spans = append(spans, i)
		}
	}
	return append(spans, len(entries))
}

// heldPairer pairs spans of buckets of held records (pairHeld) on one
// core: into pairs of ranks, with counts of its own.
type heldPairer struct {
	ctx     context.Context
	opt     *Options
	s       scheme
	ids     []string
	order   []uint32
	fps     []simhash.Fingerprint
	entries []entry
	places  *rankPlaces  // with --bbit
	stop    *atomic.Bool // another has failed, or its pairs did not fit

	recent *recentPairs
	pairs  []uint64
	room   int64 // for pairs
	st     stats
	aside  bbit.Counts
	err    error

	docs []uint32
	sigs []signed // with --bbit, of docs
}

// sort sorts the pairs: by radixSort where a scratch as long as they fit
// in the room they left, in place otherwise.
func (p *heldPairer) sort() {
	if 8*int64(len(p.pairs)) <= p.room-8*int64(cap(p.pairs)) {
		radixSort(p.pairs, make([]uint64, len(p.pairs)))
		return
	}
	slices.Sort(p.pairs)
}

// pair pairs the buckets of entries[i:end], adding the pairs tried to
// made; it returns errFull when its pairs outgrow its room.
func (p *heldPairer) pair(i, end int, made *atomic.Int64) error {
	opt, s, entries := p.opt, p.s, p.entries
	for i < end {
		j := i + 1
		for j < end && entries[j].key == entries[i].key {
			j++
		}
		docs := p.docs[:0]
		for _, e := range entries[i:j] {
			if len(docs) > 0 && docs[len(docs)-1] == e.doc {
				p.st.duplicates++
				continue
			}
			docs = append(docs, e.doc)
		}
		p.docs = docs
		p.st.buckets++
		t := int(entries[i].table)
		c := opt.capOf(entries[i].key.hi)
		p.st.noteCap(len(docs), c)
		a := opt.aside
		if a != nil && len(docs) > 1 {
			if err := a.loaded(); err != nil {
				return err
			}
			places := p.places.get(a, p.ids, p.order)
			p.sigs = p.sigs[:0]
			for _, d := range docs {
				p.sigs = append(p.sigs, signAt(a, places[d]))
			}
		}
		tried := 0
		err := capPairs(len(docs), c, made, func(x, y int) error {
			// One bucket may hold most of the pairs: look for a
			// cancellation inside it too.
			if tried++; tried%(1<<20) == 0 && p.ctx.Err() != nil {
				return p.ctx.Err()
			}
			if s.h != nil && !s.keep(t, p.fps[docs[x]], p.fps[docs[y]]) {
				return nil
			}
			pair := uint64(docs[x])<<32 | uint64(docs[y])
			var slot int
			if p.recent != nil {
				var seen bool
				if slot, seen = p.recent.slot(pair); seen {
					if a != nil {
						replay(&p.aside, p.recent.verdict[slot])
					}
					return nil // held already, or set aside
				}
				p.recent.pairs[slot] = pair
			}
			if a != nil {
				was := p.aside
				far := a.judge(&p.aside, &p.sigs[x], &p.sigs[y])
				if p.recent != nil {
					p.recent.verdict[slot] = judged(&was, &p.aside)
				}
				if far {
					return nil
				}
			}
			if len(p.pairs) == cap(p.pairs) {
				// The pairs, the old array beside the new while it
				// grows, and a byte each more (what parallelSort
				// held); sort then takes a scratch if it fits.
				n := max(2*cap(p.pairs), minSlots)
				if 8*int64(cap(p.pairs))+9*int64(n) > p.room {
					p.pairs = nil
					return errFull
				}
				p.pairs = growSlice(p.pairs, n)
			}
			p.pairs = append(p.pairs, pair)
			return nil
		})
		if err != nil {
			return err
		}
		i = j
		if p.ctx.Err() != nil {
			return p.ctx.Err()
		}
	}
	return nil
}

// errFull stops pairing in memory: the pairs would not fit.
var errFull = errors.New("the pairs do not fit in --memory")

// rankIDs numbers the ids in byte order, so that pairs of numbers sort as
// pairs of ids: order[r] is the id of rank r, rank[d] the rank of id d.
func rankIDs(ids []string, jobs int) (order, rank []uint32) {
	order = make([]uint32, len(ids))
	for i := range order {
		order[i] = uint32(i)
	}
	byID := func(a, b uint32) int { return cmp.Compare(ids[a], ids[b]) }
	parallelSort(order, jobs, byID, func(p []uint32) { slices.SortFunc(p, byID) })
	rank = make([]uint32, len(ids))
	for r, d := range order {
		rank[d] = uint32(r)
	}
	return order, rank
}

// writeRanked writes pairs of ranks (rankIDs; a<<32 | b), each of parts
// sorted, as pairs of ids: the parts merged (disk.Merge), the repeated
// pairs dropped. The output is cut into pieces of about rankedPiece
// pairs, at values of the largest part, and the pieces are made on jobs
// cores and written in order: the same bytes as one merge of the whole,
// which on one core was the end of every run (and on one core is the only
// piece, written as it is made).
func writeRanked(w io.Writer, parts [][]uint64, ids []string, order []uint32, jobs int) error {
	big, total := 0, 0
	for i := range parts {
		total += len(parts[i])
		if len(parts[i]) > len(parts[big]) {
			big = i
		}
	}
	// Piece k holds the values from cuts[k-1] (or the first) up to, not
	// including, cuts[k] (or past the last): a repeated pair is in one.
	// The parts are alike (a piece of the largest's values holds about
	// as many of each other's), so a cut every step values of the largest
	// makes pieces of about rankedPiece in all.
	var cuts []uint64
	if jobs > 1 && total > rankedPiece {
		step := max(int(int64(rankedPiece)*int64(len(parts[big]))/int64(total)), 1)
		for i := step; i < len(parts[big]); i += step {
			if v := parts[big][i]; len(cuts) == 0 || v > cuts[len(cuts)-1] {
				cuts = append(cuts, v)
			}
		}
	}
	piece := func(k int, buf []byte, flush func([]byte) ([]byte, error)) ([]byte, error) {
		var runs []*[]uint64
		for i := range parts {
			lo, hi := 0, len(parts[i])
			if k > 0 {
				lo, _ = slices.BinarySearch(parts[i], cuts[k-1])
			}
			if k < len(cuts) {
				hi, _ = slices.BinarySearch(parts[i], cuts[k])
			}
			if lo < hi {
				r := parts[i][lo:hi]
				runs = append(runs, &r)
			}
		}
		var last uint64
		first := true
		err := disk.Merge(runs, func(a, b *[]uint64) bool { return (*a)[0] < (*b)[0] }, func(r *[]uint64) (bool, error) {
			p := (*r)[0]
			*r = (*r)[1:]
			if first || p != last {
				first, last = false, p
				buf = record.AppendPair(buf, ids[order[p>>32]], ids[order[p&0xffffffff]])
				if flush != nil && len(buf) >= 1<<16 {
					var err error
					if buf, err = flush(buf); err != nil {
						return false, err
					}
				}
			}
			return len(*r) > 0, nil
		})
		return buf, err
	}
	return writePieces(w, len(cuts)+1, jobs, piece)
}

// rankedPiece is about how many pairs a piece of writeRanked's output
// holds: about 100 KB of pairs of arrival numbers, and at most jobs+1
// pieces are held at once.
const rankedPiece = 1 << 12

// writePieces writes the n pieces that piece appends to a buffer, in
// order, making them on jobs cores: at most jobs+1 are made and not yet
// written. One piece alone is made on this core and given a flush, which
// writes what it has made so far.
func writePieces(w io.Writer, n, jobs int, piece func(k int, buf []byte, flush func([]byte) ([]byte, error)) ([]byte, error)) error {
	if n == 1 {
		buf, err := piece(0, nil, func(buf []byte) ([]byte, error) {
			_, err := w.Write(buf)
			return buf[:0], err
		})
		if err == nil && len(buf) > 0 {
			_, err = w.Write(buf)
		}
		return err
	}
	type task struct {
		k    int
		done chan []byte
	}
	tasks := make(chan task)
	inOrder := make(chan chan []byte, jobs+1)
	free := make(chan []byte, jobs+2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(tasks)
		defer close(inOrder)
		for k := range n {
			done := make(chan []byte, 1)
			select {
			case inOrder <- done:
			case <-stop:
				return
			}
			tasks <- task{k, done}
		}
	})
	for range jobs {
		wg.Go(func() {
			for t := range tasks {
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				buf, _ = piece(t.k, buf[:0], nil) // no flush: no error
				t.done <- buf
			}
		})
	}
	var err error
	for done := range inOrder {
		buf := <-done
		if err == nil && len(buf) > 0 {
			if _, err = w.Write(buf); err != nil {
				close(stop)
			}
		}
		select {
		case free <- buf:
		default:
		}
	}
	wg.Wait()
	return err
}
