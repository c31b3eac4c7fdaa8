package docfreq

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Counting keeps every hash it reads, 8 bytes each, in one buffer cut into
// a region for each of the buckets (the top 8 bits of a hash); the workers
// hand over each chunk's hashes already in their buckets (partition), so
// that each goes straight to its region, and no pass over the whole buffer
// sorts them into buckets. When the buffer is full (a region is full and
// the buffer more than 7/8 full) the regions are sorted, each on its
// own, and written as a run of distinct hashes and their counts (which is
// what the buffer's duplicates come to) to a file. Hashes are uniform
// (they end in a mixer): the regions fill at one pace. A region full
// sooner (a skewed input) has the regions laid out again, the free slots
// shared by what each holds (rebalance). A map from hash to count costs
// about 36 bytes per distinct hash and a cache miss per hash read; sorting
// costs a few linear passes.

// maxSortJobs bounds the goroutines that sort the buffer, and with them the
// sorting scratch.
const maxSortJobs = 8

// maxOpenRuns bounds the runs kept open (their read buffers are counted in
// the fixed memory): when there are that many they are merged into one.
const maxOpenRuns = 64

// buckets is the number of regions of the buffer, each for the hashes of
// one value of their top bucketBits bits.
const (
	bucketBits = 8
	buckets    = 1 << bucketBits
)

// slotsFor returns the number of hashes the buffer holds under the memory
// limit: 8 bytes each, and the sorting scratch, 16 bytes per hash of a
// bucket of up to twice the mean per sorting goroutine (larger buckets are
// sorted in place), one eighth of that; stream.BufferFloor at least.
func slotsFor(limit int64) int {
	return int(max(limit, stream.BufferFloor) / 9)
}

// counter counts hashes in a buffer that spills sorted runs.
type counter struct {
	// buf holds the regions: region b is buf[start[b]:start[b+1]], and
	// holds fill[b] hashes; n in all.
	buf   []uint64
	start [buckets + 1]int
	fill  [buckets]int
	n     int
	// laidOut counts the times the regions were laid out again since
	// the buffer was empty.
	laidOut int
	runs    disk.Runs
	// spilled counts the runs spilled.
	spilled int
	jobs    int
	sorters []hashsort.Sorter
}

func newCounter(opt *Options, jobs int) *counter {
	limit := opt.MemoryBytes
	jobs = min(max(jobs, 1), maxSortJobs)
	c := &counter{
		// The whole buffer at once: the pages that are never written
		// are never resident, and no growth leaves copies behind.
		buf:     make([]uint64, slotsFor(limit)),
		runs:    disk.Runs{Dir: opt.TempDir, Pattern: "neardup-docfreq-*", What: "counts"},
		jobs:    jobs,
		sorters: make([]hashsort.Sorter, jobs),
	}
	c.empty()
	return c
}

// bucketOf returns the bucket of hash h.
func bucketOf(h uint64) int { return int(h >> (64 - bucketBits)) }

// partition returns hashes in their buckets, in dst (grown as needed), and
// where each bucket's end: bucket b is [ends[b-1], ends[b]), from 0.
func partition(dst, hashes []uint64, ends *[buckets]int) []uint64 {
	*ends = [buckets]int{}
	for _, h := range hashes {
		ends[bucketOf(h)]++
	}
	var next [buckets]int
	s := 0
	for b, n := range ends {
		next[b] = s
		s += n
		ends[b] = s
	}
	dst = slices.Grow(dst[:0], len(hashes))[:len(hashes)]
	for _, h := range hashes {
		b := bucketOf(h)
		dst[next[b]] = h
		next[b]++
	}
	return dst
}

// add counts hashes in their buckets (partition), spilling when the
// buffer is full.
func (c *counter) add(hashes []uint64, ends *[buckets]int) error {
	start := 0
	for b, end := range ends {
		part := hashes[start:end]
		start = end
		for len(part) > 0 {
			k := copy(c.buf[c.start[b]+c.fill[b]:c.start[b+1]], part)
			c.fill[b] += k
			c.n += k
			part = part[k:]
			if c.start[b]+c.fill[b] < c.start[b+1] {
				continue
			}
			// A region is full. Lay them out again while the buffer is
			// less than 7/8 full, a few times at most (a region that is
			// the only one to grow would have them laid out again and
			// again).
			if 8*c.n < 7*len(c.buf) && c.laidOut < maxLayouts {
				c.rebalance()
				continue
			}
			if err := c.spill(); err != nil {
				return err
			}
		}
	}
	return nil
}

// rebalance lays the regions out again, each with what it holds and a
// share of the free slots by what it holds (and one more). The regions keep their order: those that move down are moved
// first, the lowest first, then those that move up, the highest first, so
// that none is written over before it has moved.
func (c *counter) rebalance() {
	free := len(c.buf) - c.n
	var start [buckets + 1]int
	s := 0
	for b, n := range c.fill {
		start[b] = s
		s += n + int(int64(free)*int64(n+1)/int64(c.n+buckets))
	}
	start[buckets] = len(c.buf)
	for b := range buckets {
		if start[b] <= c.start[b] {
			copy(c.buf[start[b]:], c.part(b))
		}
	}
	for b := buckets - 1; b >= 0; b-- {
		if start[b] > c.start[b] {
			copy(c.buf[start[b]:], c.part(b))
		}
	}
	c.start = start
	c.laidOut++
}

// maxLayouts is how many times the regions are laid out again between
// spills.
const maxLayouts = 8

// part returns what region b holds.
func (c *counter) part(b int) []uint64 { return c.buf[c.start[b]:][:c.fill[b]] }

// spill writes the buffer as a sorted run of (hash, count) and empties it.
func (c *counter) spill() error {
	err := c.runs.Spill(func(w *bufio.Writer) error { return c.each(binaryWriter(w)) })
	c.spilled++
	if err != nil || c.runs.Len() < maxOpenRuns {
		return err
	}
	return c.runs.Combine(func(runs []disk.Run, w *bufio.Writer) error {
		return mergeSum(context.Background(), runSources(runs), binaryWriter(w))
	})
}

// each sorts the buffer and calls emit with each distinct hash and its
// count, ascending; the buffer is then empty.
func (c *counter) each(emit func(h, n uint64) error) error {
	c.sort()
	defer c.empty()
	for b := range buckets {
		a := c.part(b)
		for i := 0; i < len(a); {
			j := i + 1
			for j < len(a) && a[j] == a[i] {
				j++
			}
			if err := emit(a[i], uint64(j-i)); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// empty empties the buffer, and cuts it into regions of one size.
func (c *counter) empty() {
	c.fill = [buckets]int{}
	c.n, c.laidOut = 0, 0
	for b := range c.start {
		c.start[b] = b * (len(c.buf) / buckets)
	}
	c.start[buckets] = len(c.buf)
}

// sort sorts each region, on the sorting goroutines.
func (c *counter) sort() {
	large := 2*c.n/buckets + 64
	var bucket atomic.Int32
	var wg sync.WaitGroup
	for j := range c.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b := int(bucket.Add(1)) - 1
				if b >= buckets {
					return
				}
				part := c.part(b)
				if len(part) > large {
					slices.Sort(part)
				} else {
					c.sorters[j].SortShared(part, bucketBits)
				}
			}
		}()
	}
	wg.Wait()
}

// finish writes the table of everything counted to w.
func (c *counter) finish(ctx context.Context, w io.Writer) error {
	emit := textWriter(w)
	if c.runs.Len() == 0 {
		c.sort()
		defer c.empty()
		return c.writeText(w)
	}
	if c.n > 0 {
		if err := c.spill(); err != nil {
			return err
		}
	}
	c.buf = nil
	return mergeSum(ctx, runSources(c.runs.Readers()), emit)
}

// writeText writes the table of the sorted buffer to w: the buckets' lines
// are made by the sorting goroutines, at most two buckets each ahead of
// the one being written, and written in order.
func (c *counter) writeText(w io.Writer) error {
	type part struct {
		text []byte
		done chan struct{}
	}
	var parts [buckets]part
	for b := range parts {
		parts[b].done = make(chan struct{})
	}
	ahead := make(chan struct{}, 2*c.jobs)
	quit := make(chan struct{})
	free := make(chan []byte, 2*c.jobs)
	var next atomic.Int32
	var wg sync.WaitGroup
	for range c.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// A place ahead is taken before a bucket: the buckets
				// taken are in order, so the one written next has
				// one.
				select {
				case ahead <- struct{}{}:
				case <-quit:
					return
				}
				b := int(next.Add(1)) - 1
				if b >= buckets {
					return
				}
				var text []byte
				select {
				case text = <-free:
				default:
				}
				part := c.part(b)
				for i := 0; i < len(part); {
					j := i + 1
					for j < len(part) && part[j] == part[i] {
						j++
					}
					text = record.AppendDocFreq(text, part[i], uint64(j-i))
					i = j
				}
				parts[b].text = text
				close(parts[b].done)
			}
		}()
	}
	defer wg.Wait()
	defer close(quit)
	for b := range parts {
		<-parts[b].done
		if _, err := w.Write(parts[b].text); err != nil {
			return err
		}
		select {
		case free <- parts[b].text[:0]:
		default:
		}
		parts[b].text = nil
		<-ahead
	}
	return nil
}

// textWriter returns an emit function that writes table lines to w, 64 KiB
// at a time; a count of 0 flushes.
func textWriter(w io.Writer) func(h, n uint64) error {
	var buf []byte
	return func(h, n uint64) error {
		if n > 0 {
			buf = record.AppendDocFreq(buf, h, n)
		}
		if len(buf) >= 1<<16 || (n == 0 && len(buf) > 0) {
			_, err := w.Write(buf)
			buf = buf[:0]
			return err
		}
		return nil
	}
}

// binaryWriter returns an emit function that writes run entries to w: the
// hash in 8 bytes, little-endian, and the count as a uvarint. A count of 0
// does nothing.
func binaryWriter(w *bufio.Writer) func(h, n uint64) error {
	var b [8 + binary.MaxVarintLen64]byte
	return func(h, n uint64) error {
		if n == 0 {
			return nil
		}
		binary.LittleEndian.PutUint64(b[:8], h)
		k := binary.PutUvarint(b[8:], n)
		_, err := w.Write(b[:8+k])
		return err
	}
}

// source is a sorted table being merged.
type source interface {
	// next reads the next entry; it returns false at the end.
	next() (bool, error)
	entry() (hash, count uint64)
}

// runReader reads a spilled run.
type runReader struct {
	name        string
	r           *bufio.Reader
	hash, count uint64
	b           [8]byte
}

func runSources(runs []disk.Run) []source {
	s := make([]source, len(runs))
	for i, r := range runs {
		s[i] = &runReader{name: r.Name, r: r.R}
	}
	return s
}

func (r *runReader) entry() (uint64, uint64) { return r.hash, r.count }

func (r *runReader) next() (bool, error) {
	b := r.b[:]
	if _, err := io.ReadFull(r.r, b); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fmt.Errorf("reading spilled counts %s: %w", r.name, err)
	}
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return false, fmt.Errorf("reading spilled counts %s: %w", r.name, err)
	}
	r.hash, r.count = binary.LittleEndian.Uint64(b), n
	return true, nil
}

// started positions each table on its first entry and returns those that
// have one.
func started(ins []source) ([]source, error) {
	var h []source
	for _, t := range ins {
		ok, err := t.next()
		if err != nil {
			return nil, err
		}
		if ok {
			h = append(h, t)
		}
	}
	return h, nil
}

// mergeSum merges sorted tables whose first entries have not been read
// yet, summing the counts of equal hashes, and emits each hash once; a last
// call with count 0 ends the output.
func mergeSum(ctx context.Context, ins []source, emit func(h, n uint64) error) error {
	h, err := started(ins)
	if err != nil {
		return err
	}
	return mergeStarted(ctx, h, emit)
}

// mergeStarted is mergeSum of tables positioned on their first entry.
func mergeStarted(ctx context.Context, h []source, emit func(h, n uint64) error) error {
	var cur, sum uint64
	have := false
	n := 0
	less := func(a, b source) bool {
		x, _ := a.entry()
		y, _ := b.entry()
		return x < y
	}
	err := disk.Merge(h, less, func(t source) (bool, error) {
		hash, count := t.entry()
		if have && hash != cur {
			if err := emit(cur, sum); err != nil {
				return false, err
			}
			sum = 0
		}
		cur, have = hash, true
		sum += count
		if n++; n%(1<<16) == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		return t.next()
	})
	if err != nil {
		return err
	}
	if have {
		if err := emit(cur, sum); err != nil {
			return err
		}
	}
	return emit(0, 0)
}
