package pairs

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"github.com/neardup/neardup/internal/bbit"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/simhash"
	"github.com/neardup/neardup/internal/stream"
)

// The default mode holds band records (held) within Options.MemoryBytes.
// When the next record would not fit, it numbers the ids in byte order,
// sorts the records by key, then id, as it does in memory, writes them as a
// compressed run to a temporary file (bandRuns) and starts again in the
// same arrays. At the end of the input, if it spilled, it spills the rest,
// lets the arrays go and merges the runs into one stream sorted by (key,
// id), which it cuts into buckets and pairs as --sorted does, through the
// pair buffer that spills (spiller). A bucket is the records of one key
// (key128) and its ids come in byte order from every run, as in memory:
// the representatives of a capped bucket are its smallest ids either way,
// and the output is the same byte for byte.

// held is the band records the default mode holds: each distinct id once,
// numbered in arrival order (index, ids, and with Hamming tables fps), and
// per record its key, id number and table (entries).
type held struct {
	hamming bool
	index   map[string]uint32
	ids     []string
	fps     []simhash.Fingerprint
	entries []entry
	// tmp is the sorting scratch of entries, kept between spills.
	tmp []entry
	// idBytes is what the ids cost besides their slots in ids and fps:
	// their bytes and perID each.
	idBytes int64
}

const (
	// entryBytes is an entry's slot; sorting the entries holds as much
	// again (their copy, tmp) and a count of at most 4 bytes per entry.
	entryBytes = 24
	countBytes = 4
	// idSlot is an id's slot in ids (a string header), fpSlot its
	// fingerprint's in fps (Hamming tables).
	idSlot = 16
	fpSlot = 16
	// perID is what a distinct id costs besides its bytes and slots: its
	// map entry with its share of empty slots (about 56 bytes), the
	// rounding up of its allocation (8), its rank and place in the order
	// while the ids are ranked (8), and the byte that sorting them in
	// parallel holds.
	perID = 56 + 8 + 8 + 1
	// minSlots is the least the arrays grow to.
	minSlots = 1024
)

func newHeld(hamming bool) *held {
	return &held{hamming: hamming, index: map[string]uint32{}}
}

// add holds a record; pos gives its place for an error. A document's
// band records come one after another: the id of the last new one is
// compared first, and the map looked up once a document, not once a
// record (its lookups were 9 % of pairs' CPU on a million documents).
func (h *held) add(b *bandRecord, pos func() record.Pos) error {
	var d uint32
	var seen bool
	if n := len(h.ids); n > 0 && h.ids[n-1] == string(b.id) {
		d, seen = uint32(n-1), true
	} else {
		d, seen = h.index[string(b.id)]
	}
	if !seen {
		if len(h.ids) == 1<<32-1 {
			return fmt.Errorf("more than %d distinct ids: give a smaller --memory, or use --sorted", 1<<32-1)
		}
		d = uint32(len(h.ids))
		h.ids = append(h.ids, string(b.id))
		if h.hamming {
			h.fps = append(h.fps, b.fp)
		}
		h.index[h.ids[d]] = d
		h.idBytes += int64(len(b.id) + perID)
	} else if h.hamming && h.fps[d] != b.fp {
		return record.Errorf(pos(), "id %s comes with two fingerprints", b.id)
	}
	h.entries = append(h.entries, entry{key: parseKey(b.key), doc: d, table: uint32(b.table)})
	return nil
}

// slotBytes is what an id's slots cost.
func (h *held) slotBytes() int64 {
	if h.hamming {
		return idSlot + fpSlot
	}
	return idSlot
}

// size is what the records cost at their peak, when they are sorted, with
// e records, i ids and idBytes: the arrays whole (what they reserved, not
// only what they hold), the ids, and the sorting scratch.
func (h *held) size(e, i int, idBytes int64) int64 {
	return entryBytes*int64(cap(h.entries)+max(cap(h.tmp), e)) + countBytes*int64(e) +
		h.slotBytes()*int64(max(cap(h.ids), i)) + idBytes
}

// room says whether one more record, with a new id of n bytes, fits in
// limit bytes, growing the arrays if need be: twice as large (the records'
// array eight times, far from the limit), or to what fits. An array that
// grows is counted twice, the old beside the new, while it is copied. An
// empty holding always makes room, for a record larger than limit.
func (h *held) room(n int, limit int64) bool {
	e, i := len(h.entries)+1, len(h.ids)+1
	idBytes := h.idBytes + int64(n+perID)
	if h.size(e, i, idBytes) > limit && len(h.entries) > 0 {
		return false
	}
	if i > cap(h.ids) {
		old := int64(cap(h.ids))
		slot := h.slotBytes()
		// The largest arrays that fit: the old ones beside them while
		// they are copied, and the records sorted after.
		// (The records' array may have to grow to hold one more.)
		entries := entryBytes * int64(max(e-cap(h.entries), 0))
		copying := (limit-entryBytes*int64(cap(h.entries)+cap(h.tmp))-entries-idBytes)/slot - old
		sorting := (limit - h.size(e, 0, idBytes) - entries + slot*old) / slot
		newCap := min(max(2*old, minSlots), copying, sorting)
		if newCap < int64(i) {
			if len(h.entries) > 0 {
				return false
			}
			newCap = int64(i)
		}
		h.ids = growSlice(h.ids, int(newCap))
		if h.hamming {
			h.fps = growSlice(h.fps, int(newCap))
		}
		freeLarge(slot * old)
	}
	if e > cap(h.entries) {
		old := int64(cap(h.entries))
		// The largest array that fits: the old one beside it while it is
		// copied, and once full its sorting scratch.
		rest := limit - h.size(0, i, idBytes) + entryBytes*old
		fit := min((rest-entryBytes*old)/entryBytes, rest/(2*entryBytes+countBytes))
		// Eight times as large while that is under half of what fits:
		// each array made is copied into and faulted in, and doubling
		// from minSlots cost a seventh of pairs' time on make peers'
		// corpus (268,000 records: 47.7 against 40.7 ms). Near the
		// limit, doubled, so that what the records leave for the pairs
		// is as before.
		newCap := int64(max(2*cap(h.entries), minSlots))
		if c8 := 8 * int64(cap(h.entries)); c8 <= fit/2 {
			newCap = max(newCap, c8)
		}
		newCap = min(newCap, fit)
		if newCap < int64(e) {
			if len(h.entries) > 0 {
				return false
			}
			newCap = int64(e)
		}
		h.entries = growSlice(h.entries, int(newCap))
		freeLarge(entryBytes * old)
	}
	return true
}

// largeGarbage is the size of an array left behind, by growth, that is
// given back at once.
const largeGarbage = 64 << 20

// freeLarge gives the memory of a large array left behind (n bytes) back to
// the system at once: the collector, paced by --memory, frees it only some
// time later, and the next large array (the sort's scratch) came beside it,
// 5 % over --memory at the peak (pairs --bbit at 2 million documents, the
// default --memory of 2G: 2148 MiB resident).
func freeLarge(n int64) {
	if n >= largeGarbage {
		debug.FreeOSMemory()
	}
}

// growSlice returns s with capacity n.
func growSlice[T any](s []T, n int) []T {
	t := make([]T, len(s), n)
	copyParts(t, s)
	return t
}

// copyParts copies src to dst as copy does, a part at a time: one copy of
// a large array is one memmove, which the scheduler can't preempt, and
// the garbage collector, stopping each goroutine in turn, spun on the
// other core until it ended (at a million crawl documents, 3.9 s of
// pairs' 18.5 s of CPU went to that spinning while its held records grew).
func copyParts[T any](dst, src []T) {
	const part = 1 << 16
	for i := 0; i < len(src); i += part {
		copyPart(dst[i:], src[i:min(i+part, len(src))])
	}
}

// copyPart is copy in a call of its own, whose entry the goroutine is
// stopped at when the collector asks (a loop's back edge, in between
// memmoves, is almost never where its signal lands).
//
//go:noinline
func copyPart[T any](dst, src []T) { copy(dst, src) }

// reset empties the holding and keeps its arrays, for the next run.
func (h *held) reset() {
	clear(h.index)
	clear(h.ids) // let the strings go
	h.ids, h.fps, h.entries = h.ids[:0], h.fps[:0], h.entries[:0]
	h.idBytes = 0
}

// rank numbers the ids in byte order and sorts the entries by key, then id
// (rankIDs, sortEntries); it returns the order of the ids and the ranked
// fingerprints.
func (h *held) rank(jobs int) (order []uint32, fps []simhash.Fingerprint) {
	order, rank := rankIDs(h.ids, jobs)
	if h.hamming {
		fps = make([]simhash.Fingerprint, len(h.fps))
		for d, fp := range h.fps {
			fps[rank[d]] = fp
		}
	}
	for i := range h.entries {
		h.entries[i].doc = rank[h.entries[i].doc]
	}
	return order, fps
}

// bandRuns are band records spilled to sorted runs. Each run is cut into
// parts by the leading bits of the keys' low words (a hash, uniform), each
// part a compressed stream of its own, so that at the end the parts are
// merged and paired on every core, a part at a time: a bucket is in one
// part, and the pairs go to one spiller, which sorts them.
type bandRuns struct {
	runs    disk.Runs
	hamming bool
	jobs    int
	// fanIn is the most runs kept: when there are that many they are
	// merged into one, so that reading them (runReaderBytes each, in each
	// of the parts read at once) stays within reserve.
	fanIn int
	// parts is the number of parts of a run, a power of 2.
	parts int
	// info is each run's ends of parts and id width, in the order of runs.
	info []runInfo
	// spills counts the runs written, bytes their compressed bytes
	// (merged runs not counted again).
	spills int
	bytes  int64
}

// runInfo is what a run's reader needs to know of it: the offsets at
// which its parts end, and the width of its ids (numberWidth).
type runInfo struct {
	ends  []int64
	width int
}

// partsOf is the number of parts of a run for jobs workers: a few parts
// each, as they are uneven.
func partsOf(jobs int) int {
	if jobs <= 1 {
		return 1
	}
	return min(64, 1<<bits.Len(uint(4*jobs-1)))
}

// partBatchBytes is the batch of pairs a worker makes before it hands them
// to the spiller.
const partBatchBytes = 1 << 20

// runReaderBytes is what reading a run holds: its file's buffer, and the
// decompressor's buffers for a block and its compressed form.
const runReaderBytes = 64<<10 + 2*(runBlock+runBlock/8+64)

// runBlock is the size of the compressed blocks of a run.
const runBlock = 64 << 10

// newBandRuns returns the runs of a stage with limit bytes, and the bytes
// of the limit left to the records held: the rest is kept for reading the
// runs, when they are merged, and a 64th for what a spill allocates beside
// them and what the collector has not yet freed when it starts (at ten
// million documents and --memory 2G each spill rose 20 MiB past it).
func newBandRuns(opt *Options, hamming bool, limit int64) (*bandRuns, int64) {
	parts := partsOf(opt.Jobs)
	readers := int64(min(opt.Jobs, parts))
	fanIn := int(min(maxOpenRuns, max(4, limit/8/readers/runReaderBytes)))
	// Each part read at once holds its readers and its batch of pairs;
	// the batch is counted twice, for its arrays' growth and their
	// offsets.
	reserve := readers * (int64(fanIn)*runReaderBytes + 2*partBatchBytes)
	return &bandRuns{
		runs:    disk.Runs{Dir: opt.TempDir, Pattern: "neardup-pairs-bands-*", What: "band records"},
		hamming: hamming,
		jobs:    opt.Jobs,
		fanIn:   fanIn,
		parts:   parts,
	}, max(limit-reserve-limit/64, limit/2, stream.BufferFloor)
}

// spill writes the records held as a run and empties the holding.
func (br *bandRuns) spill(h *held) error {
	order, fps := h.rank(br.jobs)
	if cap(h.tmp) < len(h.entries) {
		old := cap(h.tmp)
		h.tmp = nil
		freeLarge(entryBytes * int64(old))
		h.tmp = make([]entry, len(h.entries))
	}
	sortEntriesWith(h.entries, h.tmp[:len(h.entries)], br.jobs)
	return br.write(h, order, fps)
}

// scratchWords returns n words in the sorting scratch tmp when it has room
// (three words a record, and an id has a record at least; free once the
// records are sorted), or new ones: an array of 8 bytes an id beside what
// is held took each spill 36 MiB over --memory 2G at ten million
// documents. An entry holds no pointer, so its memory may be read as words.
func scratchWords(tmp []entry, n int) []uint64 {
	if n == 0 || int(unsafe.Sizeof(entry{})/8)*cap(tmp) < n {
		return make([]uint64, n)
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(tmp[:1]))), n)
}

// write writes the records held, ranked and sorted (held.rank and
// sortEntries; order and fps are what rank returned), as a run, and
// empties the holding.
func (br *bandRuns) write(h *held, order []uint32, fps []simhash.Fingerprint) error {
	width := numberWidth(h.ids)
	// The ids' numbers in the order of their ranks, read once each, not
	// once per record from ids scattered in memory.
	var nums []uint64
	if width > 0 {
		nums = scratchWords(h.tmp, len(order))
		for r, d := range order {
			nums[r] = digitsValue(h.ids[d])
		}
	}
	var ends []int64
	err := br.runs.Spill(func(w *bufio.Writer) error {
		enc := newRunWriter(w, br.hamming, width, br.parts)
		for _, e := range h.entries {
			var fp simhash.Fingerprint
			if fps != nil {
				fp = fps[e.doc]
			}
			var err error
			if nums != nil {
				err = writeRecord(enc, e.key, nums[e.doc], "", e.table, fp)
			} else {
				err = writeRecord(enc, e.key, 0, h.ids[order[e.doc]], e.table, fp)
			}
			if err != nil {
				return err
			}
		}
		err := enc.close()
		br.bytes += enc.bytes()
		ends = enc.ends
		return err
	})
	if err != nil {
		return err
	}
	br.info = append(br.info, runInfo{ends, width})
	br.spills++
	h.reset()
	if br.runs.Len() < br.fanIn {
		return nil
	}
	return br.combine()
}

// combine merges the runs into one, a part at a time.
func (br *bandRuns) combine() error {
	width := br.info[0].width
	for _, in := range br.info {
		if in.width != width {
			width = 0
		}
	}
	var ends []int64
	err := br.runs.Replace(func(w *bufio.Writer) error {
		enc := newRunWriter(w, br.hamming, width, br.parts)
		for p := range br.parts {
			rs, err := br.open(p)
			if err != nil {
				return err
			}
			err = mergeBandRuns(rs, func(r *runReader) error { return writeRecord(enc, r.key, r.num, r.id, r.table, r.fp) })
			if err != nil {
				return err
			}
		}
		err := enc.close()
		ends = enc.ends
		return err
	})
	if err != nil {
		return err
	}
	br.info = []runInfo{{ends, width}}
	return nil
}

// open opens part p of every run for reading.
func (br *bandRuns) open(p int) ([]*runReader, error) {
	rs := make([]*runReader, len(br.info))
	for i, in := range br.info {
		start := int64(0)
		if p > 0 {
			start = in.ends[p-1]
		}
		r, err := newRunReader(br.runs.Section(i, start, in.ends[p]-start), br.hamming)
		if err != nil {
			return nil, err
		}
		rs[i] = r
	}
	return rs, nil
}

// report is the line that says the stage spilled.
func (br *bandRuns) report(w io.Writer, limit int64, pairs *spiller) {
	fmt.Fprintf(w, "pairs: band records beyond --memory %s spilled to %d sorted run(s) in the temporary directory, %s compressed",
		sizeText(limit), br.spills, sizeText(br.bytes))
	if pairs != nil && pairs.spills > 0 {
		fmt.Fprintf(w, "; pairs to %d run(s)", pairs.spills)
	}
	fmt.Fprintln(w)
}

// sizeText writes n bytes with a binary suffix.
func sizeText(n int64) string {
	switch {
	case n >= 10<<30:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 10<<20:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// pairs merges the runs into buckets and pairs them as --sorted does,
// through sp: the parts on up to jobs goroutines, each part's pairs judged
// (--bbit) by the goroutine that makes them and handed to sp in batches.
// sp sorts them, so the output is the same for any jobs.
func (br *bandRuns) pairs(opt *Options, s scheme, st *stats, sp *spiller, cancelled func() error) error {
	shared := &sharedPairs{sp: sp, st: st, aside: opt.aside}
	errs := make([]error, br.parts)
	var failed atomic.Bool
	parallelFor(br.parts, br.jobs, func(p int) {
		if failed.Load() {
			return
		}
		if errs[p] = br.pairPart(p, opt, s, shared, cancelled); errs[p] != nil {
			failed.Store(true)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sharedPairs is the spiller the parts' goroutines hand their pairs to,
// and the counts they add theirs to.
type sharedPairs struct {
	mu    sync.Mutex
	sp    *spiller
	st    *stats
	aside *setAside
}

// partPairs are the pairs a goroutine made of a part, judged, not yet
// handed to the spiller, and its counts.
type partPairs struct {
	shared *sharedPairs
	st     stats
	aside  bbit.Counts
	// arena holds the pairs as pair records; tabs and ends are the
	// offsets of each one's TAB and LF.
	arena      []byte
	tabs, ends []int
}

// add keeps the pair a, b, judged already (--bbit).
func (w *partPairs) add(a, b []byte) error {
	w.tabs = append(w.tabs, len(w.arena)+len(a))
	w.arena = record.AppendPair(w.arena, a, b)
	w.ends = append(w.ends, len(w.arena)-1)
	if len(w.arena) >= partBatchBytes {
		return w.flush()
	}
	return nil
}

// flush hands the pairs to the spiller.
func (w *partPairs) flush() error {
	sh := w.shared
	sh.st.made.Add(w.st.made.Swap(0))
	sh.mu.Lock()
	defer sh.mu.Unlock()
	start := 0
	for i, tab := range w.tabs {
		if err := sh.sp.put(w.arena[start:tab], w.arena[tab+1:w.ends[i]]); err != nil {
			return err
		}
		start = w.ends[i] + 1
	}
	w.arena, w.tabs, w.ends = w.arena[:0], w.tabs[:0], w.ends[:0]
	return nil
}

// done hands the rest of the pairs to the spiller, and the counts.
func (w *partPairs) done() error {
	err := w.flush()
	sh := w.shared
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.st.add(&w.st)
	if sh.aside != nil {
		sh.aside.counts.Add(w.aside)
	}
	return err
}

// pairPart merges part p of the runs into buckets and pairs them.
func (br *bandRuns) pairPart(p int, opt *Options, s scheme, shared *sharedPairs, cancelled func() error) error {
	rs, err := br.open(p)
	if err != nil {
		return err
	}
	w := &partPairs{shared: shared}
	st := &w.st
	var (
		key     key128
		table   int
		started bool
		arena   []byte
		ends    []int
		fps     []simhash.Fingerprint
		ms      []member
		buckets int
	)
	aside := shared.aside
	keep := func(a, b *member) bool {
		return s.keep(table, a.fp, b.fp) && (aside == nil || !aside.judge(&w.aside, &a.sg, &b.sg))
	}
	flush := func() error {
		st.buckets++
		if len(ends) < 2 {
			return nil
		}
		ms = ms[:0]
		start := 0
		for i, e := range ends {
			m := member{id: arena[start:e], fp: fps[i]}
			if n := len(ms); s.h != nil && n > 0 && bytes.Equal(ms[n-1].id, m.id) && ms[n-1].fp != m.fp {
				return record.Bad("id %s comes with two fingerprints", m.id)
			}
			ms = append(ms, m)
			start = e
		}
		if err := aside.signMembers(ms); err != nil {
			return err
		}
		repeated, _, err := pairBucket(ms, opt.capOf(key.hi), st, keep, w.add)
		st.duplicates += int64(repeated)
		if err != nil {
			return err
		}
		if buckets++; buckets%4096 == 0 {
			return cancelled()
		}
		return nil
	}
	err = mergeBandRuns(rs, func(r *runReader) error {
		if !started || r.key != key {
			if started {
				if err := flush(); err != nil {
					return err
				}
			}
			started, key, table = true, r.key, int(r.table)
			arena, ends, fps = arena[:0], ends[:0], fps[:0]
		}
		arena = append(arena, r.id...)
		ends = append(ends, len(arena))
		fps = append(fps, r.fp)
		return nil
	})
	if err == nil && started {
		err = flush()
	}
	return errors.Join(err, w.done())
}

// mergeBandRuns merges runs by key, then id, calling each with every
// record in that order (equal records in the order of the runs).
func mergeBandRuns(rs []*runReader, each func(r *runReader) error) error {
	var live []*runReader
	for _, r := range rs {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			live = append(live, r)
		}
	}
	return disk.Merge(live, lessRecord, func(r *runReader) (bool, error) {
		if err := each(r); err != nil {
			return false, err
		}
		return r.next()
	})
}

// lessRecord orders records as sortEntries does: by key (lo, then hi),
// then id bytewise (the order of the ranks).
func lessRecord(a, b *runReader) bool {
	switch {
	case a.key.lo != b.key.lo:
		return a.key.lo < b.key.lo
	case a.key.hi != b.key.hi:
		return a.key.hi < b.key.hi
	}
	return bytes.Compare(a.id, b.id) < 0
}

// A run is parts, one after the other, each an s2 stream (blocks of
// runBlock bytes) of a byte that gives the ids' width, then the records of
// the part in order:
//
//	uvarint  the key's low word minus the previous record's (0 before the first)
//	uvarint  the key's high word (the band, for keys of band's form)
//	         the id: with width w > 0 (every id of the run is w decimal
//	         digits, as shingle --number-from writes them) its value as a
//	         uvarint; with width 0 its length as a uvarint, then its bytes
//	uvarint  the table, and 16 bytes, the fingerprint (Hi, Lo, little
//	         endian): with Hamming tables only

// maxWidth is the most digits of an id stored as a number.
const maxWidth = 19

// numberWidth returns the width w of the ids when every one is w decimal
// digits (w at most maxWidth), else 0.
func numberWidth(ids []string) int {
	if len(ids) == 0 || len(ids[0]) == 0 || len(ids[0]) > maxWidth {
		return 0
	}
	w := len(ids[0])
	for _, id := range ids {
		if len(id) != w {
			return 0
		}
		for i := 0; i < len(id); i++ {
			if id[i] < '0' || id[i] > '9' {
				return 0
			}
		}
	}
	return w
}

// runWriter writes a run, cut into parts: a part is a stream of its own,
// and ends holds the offset where each part written ends.
type runWriter struct {
	z       *s2.Writer
	count   countWriter
	hamming bool
	width   int
	prevLo  uint64
	// buf gathers records for the compressor, a block at a time.
	buf []byte
	// A record is in part key.lo >> shift; part is the one being written,
	// of parts.
	shift uint
	part  uint64
	parts int
	ends  []int64
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// newRunWriter returns a writer of a run of parts parts (a power of 2)
// whose ids are width digits (0: bytes).
func newRunWriter(w io.Writer, hamming bool, width, parts int) *runWriter {
	rw := &runWriter{hamming: hamming, width: width, count: countWriter{w: w}, parts: parts}
	rw.shift = uint(64 - bits.TrailingZeros(uint(parts)))
	rw.z = s2.NewWriter(&rw.count, s2.WriterConcurrency(1), s2.WriterBlockSize(runBlock))
	rw.buf = append(make([]byte, 0, runBlock+1<<10), byte(width))
	return rw
}

// endPart ends the part being written and starts the next.
func (rw *runWriter) endPart() error {
	if _, err := rw.z.Write(rw.buf); err != nil {
		return err
	}
	if err := rw.z.Close(); err != nil {
		return err
	}
	rw.ends = append(rw.ends, rw.count.n)
	rw.z.Reset(&rw.count)
	rw.part++
	rw.prevLo = 0
	rw.buf = append(rw.buf[:0], byte(rw.width))
	return nil
}

// digitsValue is the value of a string of decimal digits.
func digitsValue[ID ~string | ~[]byte](id ID) uint64 {
	n := uint64(0)
	for i := 0; i < len(id); i++ {
		n = n*10 + uint64(id[i]-'0')
	}
	return n
}

// writeRecord writes a record to a run; records come sorted by key. The
// id is num when the run's ids are numbers (width > 0), else id.
func writeRecord[ID ~string | ~[]byte](rw *runWriter, k key128, num uint64, id ID, table uint32, fp simhash.Fingerprint) error {
	for k.lo>>rw.shift > rw.part {
		if err := rw.endPart(); err != nil {
			return err
		}
	}
	b := binary.AppendUvarint(rw.buf, k.lo-rw.prevLo)
	rw.prevLo = k.lo
	b = binary.AppendUvarint(b, k.hi)
	if rw.width > 0 {
		b = binary.AppendUvarint(b, num)
	} else {
		b = binary.AppendUvarint(b, uint64(len(id)))
		b = append(b, id...)
	}
	if rw.hamming {
		b = binary.AppendUvarint(b, uint64(table))
		b = binary.LittleEndian.AppendUint64(b, fp.Hi)
		b = binary.LittleEndian.AppendUint64(b, fp.Lo)
	}
	rw.buf = b
	if len(b) < runBlock {
		return nil
	}
	_, err := rw.z.Write(b)
	rw.buf = b[:0]
	return err
}

// close writes what is left and ends the run's every part.
func (rw *runWriter) close() error {
	for int(rw.part) < rw.parts-1 {
		if err := rw.endPart(); err != nil {
			return err
		}
	}
	if _, err := rw.z.Write(rw.buf); err != nil {
		return err
	}
	rw.buf = rw.buf[:0]
	if err := rw.z.Close(); err != nil {
		return err
	}
	rw.ends = append(rw.ends, rw.count.n)
	return nil
}

// bytes is the compressed bytes written so far.
func (rw *runWriter) bytes() int64 { return rw.count.n }

// runReader reads a part of a run: its current record is key, id (valid
// until the next record; num its value when the ids are numbers), table
// and fp.
type runReader struct {
	name    string
	z       *s2.Reader
	hamming bool
	width   int
	prevLo  uint64

	key   key128
	id    []byte
	num   uint64
	table uint32
	fp    simhash.Fingerprint
}

func newRunReader(run disk.Run, hamming bool) (*runReader, error) {
	r := &runReader{name: run.Name, hamming: hamming}
	r.z = s2.NewReader(run.R, s2.ReaderMaxBlockSize(runBlock))
	w, err := r.z.ReadByte()
	if err != nil {
		return nil, r.corrupt(err)
	}
	if w > maxWidth {
		return nil, r.corrupt(fmt.Errorf("id width %d", w))
	}
	r.width = int(w)
	return r, nil
}

func (r *runReader) corrupt(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("reading spilled band records %s: %w", r.name, err)
}

// next reads the next record; it returns false at the end of the run.
func (r *runReader) next() (bool, error) {
	delta, err := binary.ReadUvarint(r.z)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, r.corrupt(err)
	}
	r.prevLo += delta
	r.key.lo = r.prevLo
	if r.key.hi, err = binary.ReadUvarint(r.z); err != nil {
		return false, r.corrupt(err)
	}
	n, err := binary.ReadUvarint(r.z)
	if err != nil {
		return false, r.corrupt(err)
	}
	if r.width > 0 {
		r.num = n
		r.id = appendPadded(r.id[:0], n, r.width)
	} else {
		if n > 1<<30 {
			return false, r.corrupt(fmt.Errorf("an id of %d bytes", n))
		}
		r.id = slices.Grow(r.id[:0], int(n))[:n]
		if _, err := io.ReadFull(r.z, r.id); err != nil {
			return false, r.corrupt(err)
		}
	}
	if r.hamming {
		t, err := binary.ReadUvarint(r.z)
		if err != nil {
			return false, r.corrupt(err)
		}
		var b [16]byte
		if _, err := io.ReadFull(r.z, b[:]); err != nil {
			return false, r.corrupt(err)
		}
		r.table = uint32(t)
		r.fp = simhash.Fingerprint{Hi: binary.LittleEndian.Uint64(b[:8]), Lo: binary.LittleEndian.Uint64(b[8:])}
	}
	return true, nil
}

// appendPadded appends n in decimal, zero-padded to width digits.
func appendPadded(dst []byte, n uint64, width int) []byte {
	var b [20]byte
	i := len(b)
	for n > 0 || i > len(b)-width {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return append(dst, b[i:]...)
}
