package spans

import (
	"bufio"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/hugemem"
)

// codec writes and reads the fixed-size records of a sorter.
type codec[T any] struct {
	size int
	// bucket, when set, gives each record one of 256 buckets, in order: a
	// record of a lower bucket sorts before one of a higher (sortBuffer).
	bucket func(v *T) uint8
	// radix, when set with bucket, is a key whose bits below the top
	// eight bucket takes (below bit radixShift+8) order the records
	// within a bucket first: the buckets are sorted by them 8 bits at a
	// time in place (American flag sort), down to small runs sorted by
	// cmp.
	radix      func(v *T) uint64
	radixShift int
	put        func(b []byte, v *T)
	get        func(b []byte, v *T)
	cmp        func(a, b T) int
}

// sorter sorts records in a buffer of at most max records, mapped whole
// outside Go's heap (hugemem: pages never written are never resident, and
// the collector paces itself by the heap it has, not by the buffer), and
// spills the buffer sorted to
// a run in dir when it is full; each gives them all in order at the end,
// merging the runs.
type sorter[T any] struct {
	c    codec[T]
	jobs int
	buf  []T
	free func()
	runs disk.Runs
	// nruns counts the runs spilled.
	nruns int
}

func newSorter[T any](c codec[T], max, jobs int, dir, what string) *sorter[T] {
	buf, free := hugemem.Slice[T](max)
	return &sorter[T]{c: c, jobs: jobs, buf: buf[:0], free: free,
		runs: disk.Runs{Dir: dir, Pattern: "neardup-spans-*", What: what}}
}

// release gives the buffer back and removes the runs.
func (s *sorter[T]) release() {
	if s.buf != nil {
		s.buf = nil
		s.free()
	}
	s.runs.Remove()
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
	sortBuffer(s.buf, &s.c, s.jobs)
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
	if err == nil && s.runs.Len() >= maxRuns {
		err = s.combine()
	}
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
	defer s.release()
	if s.runs.Len() == 0 {
		sortBuffer(s.buf, &s.c, s.jobs)
		for i := range s.buf {
			if err := fn(&s.buf[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if len(s.buf) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.buf = nil
	s.free()
	return s.merge(s.runs.Readers(), fn)
}

// merge calls fn with every record of the runs, in order.
func (s *sorter[T]) merge(readers []disk.Run, fn func(v *T) error) error {
	var runs []*run[T]
	for _, rr := range readers {
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

// maxRuns is the most runs a sorter keeps: at as many, they are merged
// into one, so that the merge at the end never opens more files.
var maxRuns = 128

// combine merges the runs into one.
func (s *sorter[T]) combine() error {
	return s.runs.Combine(func(runs []disk.Run, w *bufio.Writer) error {
		b := make([]byte, s.c.size)
		return s.merge(runs, func(v *T) error {
			s.c.put(b, v)
			_, err := w.Write(b)
			return err
		})
	})
}

// sortBuffer sorts buf: with a bucket function, it moves each record to
// its bucket in place (flagPass) and sorts the buckets on jobs goroutines
// (by radixSort with a radix key, else pdqsort); else with one pdqsort.
func sortBuffer[T any](buf []T, c *codec[T], jobs int) {
	if c.bucket == nil || len(buf) < 1<<12 {
		slices.SortFunc(buf, c.cmp)
		return
	}
	start := flagPass(buf, func(v *T) int { return int(c.bucket(v)) })
	jobs = max(jobs, 1)
	var wg sync.WaitGroup
	var b atomic.Int32
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(b.Add(1) - 1)
				if k >= 256 {
					return
				}
				if c.radix != nil {
					radixSort(buf[start[k]:start[k+1]], c, c.radixShift-8)
				} else {
					slices.SortFunc(buf[start[k]:start[k+1]], c.cmp)
				}
			}
		}()
	}
	wg.Wait()
}

// radixSort sorts buf, whose records agree on the bits of c.radix above
// bit shift+8, by bits shift to shift+7 in place, then each part the same
// way 8 bits lower; parts of a few records, and those whose radix bits are
// all used up, are sorted by cmp.
func radixSort[T any](buf []T, c *codec[T], shift int) {
	if len(buf) <= 48 || shift < 0 {
		slices.SortFunc(buf, c.cmp)
		return
	}
	start := flagPass(buf, func(v *T) int { return int(c.radix(v) >> uint(shift) & 0xff) })
	for b := range 256 {
		radixSort(buf[start[b]:start[b+1]], c, shift-8)
	}
}

// flagPass moves each record of buf to the part of its digit (0 to 255),
// in place, the parts in digit order (a pass of the American flag sort:
// the records counted by digit, then swapped into place), and returns
// where each part starts (start[256] = len(buf)).
func flagPass[T any](buf []T, digit func(v *T) int) (start [257]int) {
	for i := range buf {
		start[digit(&buf[i])+1]++
	}
	for b := range 256 {
		start[b+1] += start[b]
	}
	next := start
	for b := range 256 {
		for next[b] < start[b+1] {
			i := next[b]
			d := digit(&buf[i])
			if d == b {
				next[b]++
				continue
			}
			// Swap it to its part's next place, and look again at
			// what came back.
			j := next[d]
			next[d]++
			buf[i], buf[j] = buf[j], buf[i]
		}
	}
	return start
}
