package keep

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime/debug"
	"slices"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/stream"
)

// sorter sorts records by their bytes within a memory budget: held in an
// arena until it is full, then spilled to a sorted run of disk.Runs
// (uvarint length, bytes), and read back merged. Records that must sort
// by a field of any length first encode it with appendKey.
type sorter struct {
	memory int64
	arena  []byte
	recs   []sortRec
	runs   disk.Runs
	// records and bytes spilled, for the report.
	records, spilled int64
	spills           int
}

// sortRec is a record held: its place in the arena and, to sort, the 8
// bytes after those all the records held share (most comparisons end
// there, without reading the arena).
type sortRec struct {
	pre        uint64
	start, end int
}

// sorterOverhead is what a record costs in memory beyond its bytes.
const sorterOverhead = 24

func newSorter(memory int64, tempDir, what string) *sorter {
	return &sorter{memory: memory, runs: disk.Runs{Dir: tempDir, Pattern: "keep-" + what + "-*", What: what}}
}

// maxRuns is the most runs held: beyond, they are merged into one, so
// that no more files are open at once however small --memory.
const maxRuns = 64

// add takes a record (copied).
func (s *sorter) add(rec []byte) error {
	if !s.room(len(rec)) {
		if err := s.spill(); err != nil {
			return err
		}
		s.arena, s.recs = s.arena[:0], s.recs[:0]
		if !s.room(len(rec)) {
			// A record larger than the buffer: held alone.
			s.arena = slices.Grow(s.arena, len(rec))
		}
	}
	start := len(s.arena)
	s.arena = append(s.arena, rec...)
	s.recs = append(s.recs, sortRec{start: start, end: len(s.arena)})
	s.records++
	return nil
}

// room makes room for a record of n bytes, and says whether there is: two
// thirds of memory for the bytes, a third for the records' places. The
// buffers grow as they fill, within memory (the old beside the new while
// they grow): there is no room when they can't grow by half.
func (s *sorter) room(n int) bool {
	if len(s.arena)+n <= cap(s.arena) && len(s.recs) < cap(s.recs) {
		return true
	}
	memory := max(s.memory, stream.BufferFloor)
	arena, recs := int(memory*2/3), int(memory/3/sorterOverhead)
	if len(s.arena)+n > cap(s.arena) {
		c := min(max(2*cap(s.arena), len(s.arena)+n, 1<<16), arena-cap(s.arena))
		if c < len(s.arena)+n || c < cap(s.arena)*3/2 {
			return false
		}
		s.arena = slices.Grow(s.arena, c-len(s.arena))
	}
	if len(s.recs) == cap(s.recs) {
		c := min(max(2*cap(s.recs), 1<<10), recs-cap(s.recs))
		if c <= len(s.recs) || c < cap(s.recs)*3/2 {
			return false
		}
		s.recs = slices.Grow(s.recs, c-len(s.recs))
	}
	return true
}

// spill writes the records held as a sorted run and frees them.
func (s *sorter) spill() error {
	if s.runs.Len() == maxRuns {
		if err := s.combine(); err != nil {
			return err
		}
	}
	a := s.arena
	first := a[s.recs[0].start:s.recs[0].end]
	lcp := len(first)
	for _, r := range s.recs[1:] {
		rec := a[r.start:r.end]
		n := min(lcp, len(rec))
		i := 0
		for i < n && rec[i] == first[i] {
			i++
		}
		lcp = i
	}
	for i := range s.recs {
		r := &s.recs[i]
		var pre [8]byte
		copy(pre[:], a[min(r.start+lcp, r.end):r.end])
		r.pre = binary.BigEndian.Uint64(pre[:])
	}
	slices.SortFunc(s.recs, func(x, y sortRec) int {
		switch {
		case x.pre < y.pre:
			return -1
		case x.pre > y.pre:
			return 1
		}
		return bytes.Compare(a[x.start+lcp:x.end], a[y.start+lcp:y.end])
	})
	err := s.runs.Spill(func(w *bufio.Writer) error {
		var n [binary.MaxVarintLen64]byte
		for _, r := range s.recs {
			rec := s.arena[r.start:r.end]
			l := binary.PutUvarint(n[:], uint64(len(rec)))
			if _, err := w.Write(n[:l]); err != nil {
				return err
			}
			if _, err := w.Write(rec); err != nil {
				return err
			}
			s.spilled += int64(l + len(rec))
		}
		return nil
	})
	s.spills++
	return err
}

// combine merges the runs into one.
func (s *sorter) combine() error {
	return s.runs.Combine(func(runs []disk.Run, w *bufio.Writer) error {
		var n [binary.MaxVarintLen64]byte
		return s.merge(runs, func(rec []byte) error {
			l := binary.PutUvarint(n[:], uint64(len(rec)))
			if _, err := w.Write(n[:l]); err != nil {
				return err
			}
			_, err := w.Write(rec)
			return err
		})
	})
}

// merge calls each with the records of runs in order.
func (s *sorter) merge(runs []disk.Run, each func(rec []byte) error) error {
	var rs []*sortedRun
	for _, r := range runs {
		sr := &sortedRun{r: r.R}
		more, err := sr.next()
		if err != nil {
			return err
		}
		if more {
			rs = append(rs, sr)
		}
	}
	return disk.Merge(rs, func(x, y *sortedRun) bool { return bytes.Compare(x.cur, y.cur) < 0 },
		func(r *sortedRun) (bool, error) {
			if err := each(r.cur); err != nil {
				return false, err
			}
			return r.next()
		})
}

// sortedRun is a spilled run being merged.
type sortedRun struct {
	r   *bufio.Reader
	cur []byte
}

func (r *sortedRun) next() (bool, error) {
	n, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	if err == nil {
		r.cur = slices.Grow(r.cur[:0], int(n))[:n]
		_, err = io.ReadFull(r.r, r.cur)
	}
	if err != nil {
		return false, fmt.Errorf("reading spilled ids: %w", err)
	}
	return true, nil
}

// sorted spills what is held and returns the records in order, merged from
// the runs; each record is valid until the next. err is set when reading
// failed. Called once.
func (s *sorter) sorted(err *error) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if len(s.recs) > 0 {
			if *err = s.spill(); *err != nil {
				return
			}
		}
		s.free()
		stop := errors.New("stop")
		e := s.merge(s.runs.Readers(), func(rec []byte) error {
			if !yield(rec) {
				return stop
			}
			return nil
		})
		if e != nil && e != stop {
			*err = e
		}
	}
}

// free lets the buffers go, and returns a large one's memory to the system
// at once: the next buffer of --memory is filled next.
func (s *sorter) free() {
	large := cap(s.arena) > 16<<20
	s.arena, s.recs = nil, nil
	if large {
		debug.FreeOSMemory()
	}
}

// remove removes the runs.
func (s *sorter) remove() { s.runs.Remove() }

// appendKey appends id so that the bytes of records that start with it
// order them by id, then by what follows: 0 is written 0 255, and the id
// ends with 0 0.
func appendKey(dst, id []byte) []byte {
	for _, c := range id {
		dst = append(dst, c)
		if c == 0 {
			dst = append(dst, 255)
		}
	}
	return append(dst, 0, 0)
}

// splitKey returns the id at the start of rec (appendKey's encoding, into
// buf) and the rest.
func splitKey(buf, rec []byte) (id, rest []byte) {
	id = buf[:0]
	for i := 0; i < len(rec); i++ {
		if rec[i] != 0 {
			id = append(id, rec[i])
			continue
		}
		if i+1 < len(rec) && rec[i+1] == 0 {
			return id, rec[i+2:]
		}
		id = append(id, 0)
		i++
	}
	return id, nil
}

// seqFile is a temporary file of ids written in order and read back once
// in the same order (uvarint length, bytes).
type seqFile struct {
	f *os.File
	w *bufio.Writer
	n int64
}

func newSeqFile(dir, pattern string) (*seqFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	disk.Track(f.Name())
	return &seqFile{f: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

func (s *seqFile) add(id []byte) error {
	var n [binary.MaxVarintLen64]byte
	l := binary.PutUvarint(n[:], uint64(len(id)))
	s.w.Write(n[:l])
	_, err := s.w.Write(id)
	s.n++
	return err
}

// reader flushes what was written and reads it from the start.
func (s *seqFile) reader() (*sortedRun, error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return &sortedRun{r: bufio.NewReaderSize(s.f, 1<<16)}, nil
}

func (s *seqFile) remove() {
	if s == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
	disk.Untrack(s.f.Name())
}
