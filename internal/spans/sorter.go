package spans

import (
	"bufio"
	"io"
	"slices"

	"github.com/neardup/neardup/internal/disk"
)

// codec writes and reads the fixed-size records of a sorter.
type codec[T any] struct {
	size int
	put  func(b []byte, v *T)
	get  func(b []byte, v *T)
	cmp  func(a, b T) int
}

// sorter sorts records in a buffer of at most max records, allocated whole
// (pages never written are never resident), and spills the buffer sorted to
// a run in dir when it is full; each gives them all in order at the end,
// merging the runs.
type sorter[T any] struct {
	c    codec[T]
	buf  []T
	runs disk.Runs
	// nruns counts the runs spilled.
	nruns int
}

func newSorter[T any](c codec[T], max int, dir, what string) *sorter[T] {
	return &sorter[T]{c: c, buf: make([]T, 0, max),
		runs: disk.Runs{Dir: dir, Pattern: "neardup-spans-*", What: what}}
}

// add adds a record.
func (s *sorter[T]) add(v T) error {
	if len(s.buf) == cap(s.buf) {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.buf = append(s.buf, v)
	return nil
}

// spill sorts the buffer and writes it to a run.
func (s *sorter[T]) spill() error {
	slices.SortFunc(s.buf, s.c.cmp)
	s.nruns++
	err := s.runs.Spill(func(w *bufio.Writer) error {
		b := make([]byte, s.c.size)
		for i := range s.buf {
			s.c.put(b, &s.buf[i])
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
	s.buf = s.buf[:0]
	return err
}

// spilled is the number of runs written.
func (s *sorter[T]) spilled() int { return s.nruns }

// run is a spilled run being merged: its current record.
type run[T any] struct {
	r   *bufio.Reader
	b   []byte
	cur T
}

func (r *run[T]) next(c *codec[T]) (bool, error) {
	if _, err := io.ReadFull(r.r, r.b); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	c.get(r.b, &r.cur)
	return true, nil
}

// each calls fn with every record in order, and frees the buffer and the
// runs.
func (s *sorter[T]) each(fn func(v *T) error) error {
	defer s.runs.Remove()
	if s.runs.Len() == 0 {
		slices.SortFunc(s.buf, s.c.cmp)
		for i := range s.buf {
			if err := fn(&s.buf[i]); err != nil {
				return err
			}
		}
		s.buf = nil
		return nil
	}
	if len(s.buf) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.buf = nil
	var runs []*run[T]
	for _, rr := range s.runs.Readers() {
		r := &run[T]{r: rr.R, b: make([]byte, s.c.size)}
		ok, err := r.next(&s.c)
		if err != nil {
			return err
		}
		if ok {
			runs = append(runs, r)
		}
	}
	return disk.Merge(runs, func(a, b *run[T]) bool { return s.c.cmp(a.cur, b.cur) < 0 },
		func(r *run[T]) (bool, error) {
			if err := fn(&r.cur); err != nil {
				return false, err
			}
			return r.next(&s.c)
		})
}
