package pairs

import (
	"bufio"
	"bytes"
	"io"
	"slices"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
)

// DefaultMemoryBytes is the pair buffer of the sorted mode.
const DefaultMemoryBytes = 512 << 20

// maxOpenRuns bounds the spilled runs kept open: when there are that many
// they are merged into one.
const maxOpenRuns = 64

// pairBuffer holds pairs as candidate pair records in one arena.
type pairBuffer struct {
	arena []byte
	spans []span
}

// span is a record of the arena: its ids, and its LF at end.
type span struct{ start, tab, end int }

func (p *pairBuffer) add(a, b []byte) {
	s := span{start: len(p.arena), tab: len(p.arena) + len(a)}
	p.arena = record.AppendPair(p.arena, a, b)
	s.end = len(p.arena) - 1
	p.spans = append(p.spans, s)
}

func (p *pairBuffer) size() int64 { return int64(len(p.arena) + 24*len(p.spans)) }

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
	p.arena, p.spans = p.arena[:0], p.spans[:0]
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
}

func newSpiller(opt *Options) *spiller {
	limit := opt.MemoryBytes
	if limit <= 0 {
		limit = DefaultMemoryBytes
	}
	return &spiller{limit: limit, jobs: jobs(opt), runs: disk.Runs{Dir: opt.TempDir, Pattern: "neardup-pairs-*", What: "pairs"}}
}

// add keeps the pair a, b (a < b).
func (s *spiller) add(a, b []byte) error {
	s.buf.add(a, b)
	if s.buf.size() >= s.limit {
		return s.spill()
	}
	return nil
}

func (s *spiller) spill() error {
	err := s.runs.Spill(func(w *bufio.Writer) error { return s.buf.sortUnique(w, s.jobs) })
	if err != nil || s.runs.Len() < maxOpenRuns {
		return err
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
	return mergeRuns(s.runs.Readers(), w)
}

// run is one sorted run being merged.
type run struct {
	r    *bufio.Reader
	line []byte
	a, b []byte
}

func (r *run) advance() (bool, error) {
	line, err := r.r.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		return false, nil
	}
	if err != nil && err != io.EOF {
		return false, err
	}
	r.line = record.TrimEOL(line)
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
