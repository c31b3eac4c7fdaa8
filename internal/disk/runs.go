package disk

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// runBuffer is the buffer size for writing and reading a run.
const runBuffer = 1 << 16

// Runs are sorted runs spilled to temporary files, to be merged at the end.
// The zero value, given Pattern and What, is ready; Remove removes the files.
type Runs struct {
	// Dir holds the runs ("" is the system's temporary directory).
	Dir string
	// Pattern names the run files, as in os.CreateTemp.
	Pattern string
	// What the runs hold, for errors: "spilling <What>: …".
	What  string
	files []*os.File
}

// Run is a run being read.
type Run struct {
	Name string
	R    *bufio.Reader
}

// Spill writes a run: write writes the records, sorted, to w.
func (rs *Runs) Spill(write func(w *bufio.Writer) error) error {
	f, err := os.CreateTemp(rs.Dir, rs.Pattern)
	if err != nil {
		return err
	}
	Track(f.Name())
	rs.files = append(rs.files, f)
	bw := bufio.NewWriterSize(f, runBuffer)
	if err := write(bw); err != nil {
		return fmt.Errorf("spilling %s: %w", rs.What, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("spilling %s: %w", rs.What, err)
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// Len is the number of runs.
func (rs *Runs) Len() int { return len(rs.files) }

// Readers returns a reader of each run, from its start, in the order they
// were spilled.
func (rs *Runs) Readers() []Run {
	runs := make([]Run, len(rs.files))
	for i, f := range rs.files {
		runs[i] = Run{Name: f.Name(), R: bufio.NewReaderSize(f, runBuffer)}
	}
	return runs
}

// Section returns a reader of the n bytes of run i from offset off, which
// may be read at the same time as the run's other sections.
func (rs *Runs) Section(i int, off, n int64) Run {
	f := rs.files[i]
	return Run{Name: f.Name(), R: bufio.NewReaderSize(io.NewSectionReader(f, off, n), runBuffer)}
}

// Combine replaces the runs with one, which merge writes from their
// readers, so that no more than a few files are open at once.
func (rs *Runs) Combine(merge func(runs []Run, w *bufio.Writer) error) error {
	return rs.Replace(func(w *bufio.Writer) error { return merge(rs.Readers(), w) })
}

// Replace replaces the runs with one, which merge writes, reading them
// as it will (Readers, Section).
func (rs *Runs) Replace(merge func(w *bufio.Writer) error) error {
	f, err := os.CreateTemp(rs.Dir, rs.Pattern)
	if err != nil {
		return err
	}
	Track(f.Name())
	bw := bufio.NewWriterSize(f, runBuffer)
	err = merge(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		Untrack(f.Name())
		return fmt.Errorf("merging spilled %s: %w", rs.What, err)
	}
	rs.Remove()
	rs.files = append(rs.files, f)
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// Remove closes and removes the runs.
func (rs *Runs) Remove() {
	for _, f := range rs.files {
		f.Close()
		os.Remove(f.Name())
		Untrack(f.Name())
	}
	rs.files = rs.files[:0]
}

// Merge merges sorted runs, each positioned on its first record: it calls
// each with the run whose record is least by less, again and again; each
// takes that record, advances the run and tells whether the run has
// another. The order among equal records is container/heap's.
func Merge[R any](runs []R, less func(a, b R) bool, each func(r R) (more bool, err error)) error {
	h := runHeap[R]{runs, less}
	for i := len(runs)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	for len(h.runs) > 0 {
		more, err := each(h.runs[0])
		if err != nil {
			return err
		}
		if !more {
			last := len(h.runs) - 1
			h.runs[0] = h.runs[last]
			h.runs = h.runs[:last]
		}
		h.down(0)
	}
	return nil
}

// runHeap is a min-heap of runs by their current records.
type runHeap[R any] struct {
	runs []R
	less func(a, b R) bool
}

func (h *runHeap[R]) down(i int) {
	n := len(h.runs)
	for {
		j := 2*i + 1
		if j >= n || j < 0 {
			return
		}
		if r := j + 1; r < n && h.less(h.runs[r], h.runs[j]) {
			j = r
		}
		if !h.less(h.runs[j], h.runs[i]) {
			return
		}
		h.runs[i], h.runs[j] = h.runs[j], h.runs[i]
		i = j
	}
}
