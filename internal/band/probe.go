package band

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/hugemem"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/mix"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// In corpus mode band reads its input twice. Most index entries can make no
// pair: a pair comes from a probe and another record of its key, so an
// entry of B on a shingle that no document probes, or that only documents
// too large for B probe (|B| < ceil(T·|A|) for every A probing it), is in
// no pair. The first pass ranks every document's shingles and keeps the
// shingles some document probes, each with its document frequency and
// the least t = record.ContainNeed(T, |A|) of the documents A probing it (a
// probeSet), and each document's last shingle of its prefix; the second
// writes a document's probes and its index entries on those shingles whose
// least t it reaches. The pairs are exactly those of every index entry.
// On the containment bench (19,801 documents) that is 210,000 index
// entries of 13.3 million.
//
// An input that can't be read twice (standard input that is not a regular
// file, a FIFO) is copied to a file in TempDir as the first pass reads it:
// without --df that is the pass that counts the document frequencies
// (count.go), before these two.

// probeSlot is a shingle some document probes: its document frequency (0
// in an empty slot) and the least t of the documents probing it.
type probeSlot struct {
	hash     uint64
	df, need uint32
}

// probeSet holds the shingles probed, in an open-addressing hash table
// that doubles when half full (16 bytes a slot, 32 to 64 a shingle), and a
// filter of filterBits bits per slot, two of one word set for each
// shingle: a lookup of a shingle no document probes, most of them, reads a
// word of a bitmap 32 times smaller than the table, which the cache holds,
// and goes on to the table for one in 30 or fewer of them (one in 8 with
// one bit a shingle).
type probeSet struct {
	slots  []probeSlot
	filter []uint64
	shift  uint
	n      int
	mem    *probeMemory
}

// probeMemory gives back the memory of a probe set's slots and filter (on
// huge pages when large: hugemem): grow gives back the table it replaces,
// and the last is given back when the set is unreachable (a stage that
// stops on an error returns before its workers are done with it).
type probeMemory struct{ free func() }

// filterBits is log2 of the filter's bits per slot.
const filterBits = 2

func newProbeSet() *probeSet {
	s := &probeSet{mem: &probeMemory{free: func() {}}}
	s.alloc(10)
	runtime.AddCleanup(s, func(m *probeMemory) { m.free() }, s.mem)
	return s
}

// alloc makes an empty table of 1<<b slots; the caller gives back the
// memory of the one it replaces (free, returned).
func (s *probeSet) alloc(b int) (free func()) {
	slots, freeSlots := hugemem.Slice[probeSlot](1 << b)
	filter, freeFilter := hugemem.Slice[uint64](1 << (b + filterBits) / 64)
	s.slots, s.filter, s.shift, s.n = slots, filter, uint(64-b), 0
	free, s.mem.free = s.mem.free, func() { freeSlots(); freeFilter() }
	return free
}

// mixed is h scrambled; its top bits give the slot and the filter's bit.
func mixed(h uint64) uint64 { return h * 0x9e3779b97f4a7c15 }

func (s *probeSet) slot(h uint64) uint64 { return mixed(h) >> s.shift }

// bit returns the word of the filter that h's bits are in, and the two
// bits of it: one by the top bits of its scrambled hash after the slot's,
// the other by bits far below them.
func (s *probeSet) bit(h uint64) (word uint64, mask uint64) {
	x := mixed(h)
	i := x >> (s.shift - filterBits)
	return i / 64, 1<<(i%64) | 1<<(x>>16%64)
}

// add notes a probe of a document of least t need on h, of document
// frequency df.
func (s *probeSet) add(h uint64, df, need uint32) {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	word, bit := s.bit(h)
	s.filter[word] |= bit
	i := s.slot(h)
	for ; s.slots[i].df != 0; i = (i + 1) & mask {
		if s.slots[i].hash == h {
			s.slots[i].need = min(s.slots[i].need, need)
			return
		}
	}
	s.slots[i] = probeSlot{h, df, need}
	s.n++
}

func (s *probeSet) grow() {
	old := s.slots
	free := s.alloc(bits.Len(uint(len(old))))
	for _, p := range old {
		if p.df != 0 {
			s.add(p.hash, p.df, p.need)
		}
	}
	free()
}

// filtered appends to dst the hashes that pass the filter: those that may
// be in the set.
func (s *probeSet) filtered(dst, hashes []uint64) []uint64 {
	for _, h := range hashes {
		if word, bit := s.bit(h); s.filter[word]&bit == bit {
			dst = append(dst, h)
		}
	}
	return dst
}

// touch reads the first slot of each hash, as dfMap.touch does, and
// returns a sum of what it read for the caller to keep.
func (s *probeSet) touch(hashes []uint64) (sum uint64) {
	for _, h := range hashes {
		sum += s.slots[s.slot(h)].hash
	}
	return sum
}

// get returns h's slot, or nil when no document probes h.
func (s *probeSet) get(h uint64) *probeSlot {
	i := s.slot(h)
	mask := uint64(len(s.slots) - 1)
	for ; s.slots[i].df != 0; i = (i + 1) & mask {
		if s.slots[i].hash == h {
			return &s.slots[i]
		}
	}
	return nil
}

// probeChunk is what the first pass makes of a chunk: the probes written
// (shingles of df ≥ 2 in a prefix) and the last shingle of each document's
// prefix, by the document's line ordinal.
type probeChunk struct {
	probes []probeSlot
	lasts  []ordinalLast
	// entries counts the shingles of df ≥ 2 out of the prefixes: the index
	// entries of all shingles.
	entries int64
}

type ordinalLast struct {
	ordinal int64
	last    ranked
}

// probeWorker is the first pass's worker (corpus mode only).
type probeWorker struct {
	containWorker
}

func (w *probeWorker) Process(c *stream.Chunk, r *stream.Result) {
	pc := &probeChunk{}
	r.Value = pc
	eachDoc(c, r, w.skipBad, &w.hashes, func(_ []byte, ordinal int64, hashes []uint64) error {
		if !w.counted(hashes) {
			return nil
		}
		n := uint64(len(hashes))
		w.st.sum.Add(docSum(ordinal, hashes))
		need := uint32(min(record.ContainNeed(w.co.Threshold, n), 1<<32-1))
		last := w.rankDoc(hashes)
		// Corpus mode: a shingle's rank is its df, and those of df ≥ 2
		// are written.
		for i, h := range hashes {
			df := w.dfs[i]
			if df < 2 {
				continue
			}
			if df < last.rank || df == last.rank && h <= last.hash {
				pc.probes = append(pc.probes, probeSlot{h, uint32(df), need})
			} else {
				pc.entries++
			}
		}
		pc.lasts = append(pc.lasts, ordinalLast{ordinal, last})
		return nil
	})
}

// probedWorker is the second pass's worker: it writes a document's probes
// and the index entries some probe can pair.
type probedWorker struct {
	co      ContainmentOptions
	probes  *probeSet
	lasts   []ranked // by line ordinal
	skipBad bool
	st      *containStats
	hashes  []uint64
	maybe   []uint64
	key     []byte
	touched uint64
}

func (w *probedWorker) Process(c *stream.Chunk, r *stream.Result) {
	var entries int64
	eachDoc(c, r, w.skipBad, &w.hashes, func(id []byte, ordinal int64, hashes []uint64) error {
		n := uint64(len(hashes))
		w.st.docs2.Add(1)
		if n == 0 {
			return nil
		}
		w.st.sum2.Add(docSum(ordinal, hashes))
		if ordinal >= int64(len(w.lasts)) {
			return errChanged
		}
		last := w.lasts[ordinal]
		// Most shingles fail the filter; the slots of the others are
		// touched at once, so that their misses overlap.
		w.maybe = w.probes.filtered(w.maybe[:0], hashes)
		w.touched += w.probes.touch(w.maybe)
		for _, h := range w.maybe {
			p := w.probes.get(h)
			if p == nil {
				continue
			}
			probe := compareRanked(ranked{uint64(p.df), h}, last) <= 0
			if !probe {
				if n < uint64(p.need) {
					continue
				}
				entries++
			}
			w.key = record.AppendHex64(w.key[:0], h)
			r.Out = record.AppendContainBand(r.Out, w.key, id, probe, n)
		}
		return nil
	})
	w.st.entries.Add(entries)
}

// runProbed writes the containment keys of corpus mode in two passes.
func runProbed(ctx context.Context, opt Options, inputs []string, sp *spool, dfm *dfMap, out *stream.Output, st *containStats) error {
	co := *opt.Containment
	probes := newProbeSet()
	var lasts []ranked
	first := stream.NewLinesOpen(inputs, sp.open)
	defer first.Close()
	sink := func(r *stream.Result) error {
		for _, h := range r.Headers {
			if err := out.CheckHeader(h.Header, h.Pos); err != nil {
				return err
			}
		}
		if pc, ok := r.Value.(*probeChunk); ok {
			for _, p := range pc.probes {
				probes.add(p.hash, p.df, p.need)
			}
			for _, l := range pc.lasts {
				if need := int(l.ordinal) + 1; need > len(lasts) {
					lasts = append(lasts, make([]ranked, need-len(lasts))...)
				}
				lasts[l.ordinal] = l.last
			}
			st.probes += int64(len(pc.probes))
			st.allEntries += pc.entries
		}
		return r.Err
	}
	// The first pass counts no records (the second does), but shows how
	// far it has read.
	pass := stream.NewOutput("band", opt.Common, nil, out.Stderr)
	note := "first of two passes: the shingles probed"
	if st.counted != nil {
		note = "second of three passes: the shingles probed"
	}
	pass.Note = func() string { return note }
	stop := pass.Watch(first)
	err := stream.Run(ctx, first, opt.Common, func() stream.Worker {
		return &probeWorker{newContainWorker(co, dfm, opt.SkipBad, st)}
	}, sink)
	stop()
	sp.endPass()
	if err != nil {
		return err
	}
	if st.counted != nil && uint64(st.docs.Load()) != st.countedDocs {
		return errChanged
	}
	st.probed = int64(probes.n)
	second := stream.NewLinesOpen(inputs, sp.open)
	defer second.Close()
	defer out.Watch(second)()
	err = stream.Run(ctx, second, opt.Common, func() stream.Worker {
		return &probedWorker{co: co, probes: probes, lasts: lasts, skipBad: opt.SkipBad, st: st}
	}, out.Sink)
	if err != nil {
		return err
	}
	if st.docs.Load() != st.docs2.Load() || st.sum.Load() != st.sum2.Load() {
		return errChanged
	}
	return out.Finish()
}

// docSum is what a document adds to the sum that tells whether both passes
// read the same documents on the same lines: its line ordinal, its number
// of shingles and its first and last, mixed.
func docSum(ordinal int64, hashes []uint64) uint64 {
	return mix.SplitMix(uint64(ordinal) ^ uint64(len(hashes))<<40 ^ mix.Murmur(hashes[0]^mix.SplitMix(hashes[len(hashes)-1])))
}

// errChanged stops the second pass of an input that is not what the first
// read.
var errChanged = errors.New("the input changed between band's readings of it: its output is wrong")

// spool lets the passes after the first read again what the first read: a
// regular file is opened again (standard input redirected from one is
// sought back to where the first pass began); any other input is copied to
// a file in tmp (tracked, removed on a signal) as the first pass reads it.
// The inputs are opened in the same order by every pass.
type spool struct {
	tmp disk.Copies
	// copies holds, for each input the first pass opened, its copy, or
	// nil when it is read again.
	copies  []*os.File
	stdinAt int64
	closers []io.Closer
	// passes counts the passes ended; opened the inputs the pass under
	// way has opened.
	passes, opened int
	// copied counts the bytes copied, for the report.
	copied *int64
}

// open opens input name for the pass under way.
func (s *spool) open(name string) (*input.File, error) {
	if s.passes == 0 {
		return s.first(name)
	}
	return s.again(name)
}

func (s *spool) first(name string) (*input.File, error) {
	if disk.Rereadable(name) {
		s.copies = append(s.copies, nil)
		if name == "-" {
			at, err := os.Stdin.Seek(0, io.SeekCurrent)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", input.StdinName, err)
			}
			s.stdinAt = at
		}
		return input.Open(name)
	}
	var raw io.Reader = os.Stdin
	shown := input.StdinName
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, f)
		raw, shown = f, name
	}
	c, err := s.tmp.Create()
	if err != nil {
		return nil, fmt.Errorf("copying %s for the second pass: %w", shown, err)
	}
	s.copies = append(s.copies, c)
	return input.Wrap(shown, io.TeeReader(raw, &countWriter{w: c, n: s.copied}))
}

// endPass closes what the pass under way opened; the next reads the inputs
// again.
func (s *spool) endPass() {
	for _, c := range s.closers {
		c.Close()
	}
	s.closers = nil
	s.passes++
	s.opened = 0
}

func (s *spool) again(name string) (*input.File, error) {
	if s.opened >= len(s.copies) {
		return nil, fmt.Errorf("%s: opened again but not by the first pass", name)
	}
	c := s.copies[s.opened]
	s.opened++
	if c == nil {
		if name == "-" {
			if _, err := os.Stdin.Seek(s.stdinAt, io.SeekStart); err != nil {
				return nil, fmt.Errorf("%s: %w", input.StdinName, err)
			}
		}
		return input.Open(name)
	}
	if _, err := c.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	shown := name
	if name == "-" {
		shown = input.StdinName
	}
	return input.Wrap(shown, c)
}

// remove removes the copies.
func (s *spool) remove() {
	for _, c := range s.closers {
		c.Close()
	}
	s.tmp.Remove()
}

type countWriter struct {
	w io.Writer
	n *int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// loadDF loads the table of containment options co as a dfMap, keeping
// what the header and the checks need of the table. The runs of the table
// are held until the map is made from them.
func loadDF(ctx context.Context, co ContainmentOptions, jobs int) (*dfMap, *docfreq.Table, error) {
	least := uint32(2)
	if co.Mode == record.ContainQuery {
		least = 1
	}
	var runs [][]uint64
	var counts [][]uint32
	n := 0
	t, err := docfreq.Scan(ctx, co.DF, jobs, least, func(h []uint64, c []uint32) {
		runs, counts, n = append(runs, h), append(counts, c), n+len(h)
	})
	if err != nil {
		return nil, nil, err
	}
	return newDFMap(n, runs, counts, jobs), t, nil
}
