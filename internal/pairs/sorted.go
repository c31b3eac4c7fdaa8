package pairs

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// maxOpenRuns bounds the spilled runs kept open: when there are that many
// they are merged into one.
const maxOpenRuns = 64

// pairBuffer holds pairs as candidate pair records in one arena.
type pairBuffer struct {
	arena []byte
	spans []span
	// unkeyed: some pair of the buffer has no key, and the buffer is
	// sorted by its ids' bytes.
	unkeyed bool
}

// span is a record of the arena: its ids, and its LF at end; key orders
// pairs of arrival numbers below 2^32 as their ids do, as one integer.
type span struct {
	start, tab, end int
	key             uint64
}

func (p *pairBuffer) add(a, b []byte) {
	s := span{start: len(p.arena), tab: len(p.arena) + len(a)}
	p.arena = record.AppendPair(p.arena, a, b)
	s.end = len(p.arena) - 1
	if !p.unkeyed {
		na, oka := input.ParseNumber(a)
		nb, okb := input.ParseNumber(b)
		if oka && okb && na < 1<<32 && nb < 1<<32 {
			s.key = na<<32 | nb
		} else {
			p.unkeyed = true
		}
	}
	p.spans = append(p.spans, s)
}

// spanSize is the bytes of a span; spanBytes what the buffer holds per pair
// besides its record: its span, and the byte per element that sorting in
// parallel holds.
const (
	spanSize  = int(unsafe.Sizeof(span{}))
	spanBytes = spanSize + 1
)

// size is what the buffer holds: its arrays whole (what append reserved),
// and the sorting scratch.
func (p *pairBuffer) size() int64 { return int64(cap(p.arena) + spanBytes*cap(p.spans)) }

// minGrow is the least the buffer's arrays grow by.
const minGrow = 1 << 16

// room makes room for a pair record of n bytes within limit bytes, growing
// the arrays (doubling them) if need be; it returns false when they would
// outgrow limit, counting the old array and the new one that are both held
// while an array grows, and the buffer must be spilled first. An empty
// buffer always makes room, for a pair larger than limit.
func (p *pairBuffer) room(n int, limit int64) bool {
	needArena, needSpans := len(p.arena)+n > cap(p.arena), len(p.spans) == cap(p.spans)
	if !needArena && !needSpans {
		return true
	}
	arena, spans := cap(p.arena), cap(p.spans)
	least := int(min(minGrow, limit/4))
	peak := int64(0)
	if needArena {
		arena = max(2*arena, len(p.arena)+n, least)
		peak += int64(cap(p.arena))
	}
	if needSpans {
		spans = max(2*spans, least/spanBytes, 1)
		peak += int64(spanSize * cap(p.spans))
	}
	if peak+int64(arena+spanBytes*spans) > limit && len(p.spans) > 0 {
		return false
	}
	p.grow(arena, spans)
	return true
}

// fit gives the buffer, empty after a spill, arrays that take all of limit
// in the proportion of the pairs it held (avg bytes per record), unless it
// has most of it already: the old arrays are let go first, so the two are
// never held at once.
func (p *pairBuffer) fit(avg int, limit int64) {
	if p.size() >= limit*3/4 || avg <= 0 {
		return
	}
	spans := int(limit / int64(avg+spanBytes))
	arena := int(limit) - spanBytes*spans
	if arena <= cap(p.arena) && spans <= cap(p.spans) {
		return
	}
	p.arena, p.spans = nil, nil
	debug.FreeOSMemory()
	p.arena, p.spans = make([]byte, 0, arena), make([]span, 0, spans)
}

// grow gives the arrays the capacities arena and spans, and hands what
// they held before back to the operating system at once when it was large:
// else the old arrays would stay resident beside the new ones until the
// collector and the scavenger got to them, and the buffer would cost up to
// twice what it holds.
func (p *pairBuffer) grow(arena, spans int) {
	old := cap(p.arena) + spanSize*cap(p.spans)
	if arena > cap(p.arena) {
		p.arena = append(make([]byte, 0, arena), p.arena...)
	}
	if spans > cap(p.spans) {
		p.spans = append(make([]span, 0, spans), p.spans...)
	}
	if old >= 16<<20 {
		debug.FreeOSMemory()
	}
}

func (p *pairBuffer) pair(s span) (a, b []byte) {
	return p.arena[s.start:s.tab], p.arena[s.tab+1 : s.end]
}

// comparePairs orders pairs as tuples of ids, bytewise.
func comparePairs(a1, b1, a2, b2 []byte) int {
	if c := bytes.Compare(a1, a2); c != 0 {
		return c
	}
	return bytes.Compare(b1, b2)
}

// sortUnique sorts the buffer with up to jobs goroutines and writes each
// distinct pair once to w.
func (p *pairBuffer) sortUnique(w io.Writer, jobs int) error {
	byPair := func(x, y span) int {
		a1, b1 := p.pair(x)
		a2, b2 := p.pair(y)
		return comparePairs(a1, b1, a2, b2)
	}
	if !p.unkeyed {
		// Arrival numbers of as many digits each: their order is the
		// numbers'.
		byPair = func(x, y span) int { return cmp.Compare(x.key, y.key) }
	}
	parallelSort(p.spans, jobs, byPair, func(part []span) { slices.SortFunc(part, byPair) })
	bw := bufio.NewWriterSize(w, 1<<16)
	var prevA, prevB []byte
	for i, s := range p.spans {
		a, b := p.pair(s)
		if i > 0 && bytes.Equal(a, prevA) && bytes.Equal(b, prevB) {
			continue
		}
		prevA, prevB = a, b
		bw.Write(p.arena[s.start : s.end+1])
	}
	p.arena, p.spans, p.unkeyed = p.arena[:0], p.spans[:0], false
	return bw.Flush()
}

// spiller keeps pairs in a buffer of at most limit bytes that spills to
// sorted runs in dir (each pair once per run), and writes every distinct
// pair once, sorted, at the end.
type spiller struct {
	buf   pairBuffer
	runs  disk.Runs
	limit int64
	jobs  int // goroutines that sort the buffer
	// spills counts the runs written (merged runs not counted again).
	spills int
	// aside, with --bbit, sets pairs aside.
	aside *setAside
}

func newSpiller(opt *Options) *spiller {
	return &spiller{limit: opt.MemoryBytes, jobs: opt.Jobs, aside: opt.aside, runs: disk.Runs{Dir: opt.TempDir, Pattern: "neardup-pairs-*", What: "pairs"}}
}

// add keeps the pair a, b (a < b), unless it is set aside (--bbit).
func (s *spiller) add(a, b []byte) error {
	if s.aside != nil {
		if far, err := far(s.aside, &s.aside.counts, a, b); far || err != nil {
			return err
		}
	}
	return s.put(a, b)
}

// put keeps the pair a, b (a < b), judged already.
func (s *spiller) put(a, b []byte) error {
	n := len(a) + len(b) + 2
	if !s.buf.room(n, s.limit) {
		if err := s.spill(); err != nil {
			return err
		}
		s.buf.room(n, s.limit)
	}
	s.buf.add(a, b)
	return nil
}

func (s *spiller) spill() error {
	avg := 0
	if n := len(s.buf.spans); n > 0 {
		avg = len(s.buf.arena)/n + 1
	}
	err := s.runs.Spill(func(w *bufio.Writer) error { return s.buf.sortUnique(w, s.jobs) })
	if err != nil {
		return err
	}
	s.spills++
	s.buf.fit(avg, s.limit)
	if s.runs.Len() < maxOpenRuns {
		return nil
	}
	// Merge the runs into one, so that no more than maxOpenRuns files are
	// ever open at once.
	return s.runs.Combine(func(runs []disk.Run, w *bufio.Writer) error { return mergeRuns(runs, w) })
}

// finish writes every distinct pair once, sorted.
func (s *spiller) finish(w io.Writer) error {
	if s.runs.Len() == 0 {
		return s.buf.sortUnique(w, s.jobs)
	}
	if len(s.buf.spans) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	// The buffer is no longer needed: let the merge have its memory.
	s.buf = pairBuffer{}
	debug.FreeOSMemory()
	return mergeRuns(s.runs.Readers(), w)
}

// run is one sorted run being merged.
type run struct {
	r    *bufio.Reader
	line []byte
	a, b []byte
}

func (r *run) advance() (bool, error) {
	// Into the run's own buffer, reused: allocating each line would leave
	// garbage as large as the runs for the collector.
	r.line = r.line[:0]
	for {
		part, err := r.r.ReadSlice('\n')
		r.line = append(r.line, part...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(r.line) == 0 {
			return false, nil
		}
		if err != nil && err != io.EOF {
			return false, err
		}
		break
	}
	r.line = record.TrimEOL(r.line)
	r.a, r.b, _ = record.ParsePair(r.line)
	return true, nil
}

// mergeRuns merges sorted runs of distinct pairs, writing each pair once.
func mergeRuns(runs []disk.Run, w io.Writer) error {
	var rs []*run
	for _, in := range runs {
		r := &run{r: in.R}
		ok, err := r.advance()
		if err != nil {
			return err
		}
		if ok {
			rs = append(rs, r)
		}
	}
	var prevA, prevB []byte
	first := true
	out := bufio.NewWriterSize(w, 1<<16)
	less := func(x, y *run) bool { return comparePairs(x.a, x.b, y.a, y.b) < 0 }
	err := disk.Merge(rs, less, func(r *run) (bool, error) {
		if first || !bytes.Equal(r.a, prevA) || !bytes.Equal(r.b, prevB) {
			out.Write(r.line)
			out.WriteByte('\n')
			prevA = append(prevA[:0], r.a...)
			prevB = append(prevB[:0], r.b...)
			first = false
		}
		return r.advance()
	})
	if err != nil {
		return err
	}
	return out.Flush()
}
