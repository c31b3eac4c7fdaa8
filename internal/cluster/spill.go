package cluster

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/unionfind"
)

// Components beyond --memory. When the documents held (the ids interned and
// the union-find forest) pass --memory, the forest read so far becomes a
// pair per document (the document and its root) and every pair from then on
// is an occurrence of each id in a buffer, spilled to sorted runs in
// --temp-dir when full. Then, all by merges of sorted runs held to --memory:
//
//  1. the occurrences in id order number the distinct ids in that order
//     (the ids written to a file in that order), and give each pair's end
//     its number;
//  2. those numbers in the order of the pairs join the two ends of each,
//     in a union-find forest over the numbers (8 bytes a document);
//  3. a cluster is named by its smallest number, which is its smallest
//     id; the documents, read back from the file with their cluster's
//     number, in the order of (cluster, number) are the output's order.
//
// The output is the same as in memory.

// entry is a record held or spilled: two numbers and bytes of the arena.
type entry struct {
	x, y     uint64
	off, len uint32
}

const entrySize = 24

// entries is a buffer of entries of one order, spilled to sorted runs
// when it holds half its memory (so that growing stays within it).
type entries struct {
	cmp    func(a, b entry, ab, bb []byte) int
	memory int64
	arena  []byte
	ents   []entry
	runs   disk.Runs
	spills int
	bytes  int64
}

// newEntries holds entries within memory, stream.BufferFloor at least.
func newEntries(dir, what string, memory int64, cmp func(a, b entry, ab, bb []byte) int) *entries {
	return &entries{cmp: cmp, memory: max(memory, stream.BufferFloor), runs: disk.Runs{Dir: dir, Pattern: "cluster-" + what + "-*", What: what}}
}

func (e *entries) held() int64 { return int64(cap(e.arena)) + entrySize*int64(cap(e.ents)) }

func (e *entries) add(x, y uint64, b []byte) error {
	if len(e.ents) > 0 && e.held()+int64(len(b))+entrySize > e.memory/2 &&
		(len(e.ents) == cap(e.ents) || len(e.arena)+len(b) > cap(e.arena)) {
		if err := e.spill(); err != nil {
			return err
		}
	}
	e.ents = append(e.ents, entry{x: x, y: y, off: uint32(len(e.arena)), len: uint32(len(b))})
	e.arena = append(e.arena, b...)
	return nil
}

func (e *entries) bytesOf(en entry) []byte { return e.arena[en.off : en.off+en.len] }

func (e *entries) sort() {
	slices.SortFunc(e.ents, func(a, b entry) int { return e.cmp(a, b, e.bytesOf(a), e.bytesOf(b)) })
}

func (e *entries) spill() error {
	e.sort()
	err := e.runs.Spill(func(w *bufio.Writer) error {
		for _, en := range e.ents {
			n, err := writeEntry(w, en.x, en.y, e.bytesOf(en))
			if err != nil {
				return err
			}
			e.bytes += int64(n)
		}
		return nil
	})
	e.spills++
	e.ents, e.arena = e.ents[:0], e.arena[:0]
	if err == nil && e.runs.Len() >= maxRuns {
		// No more than maxRuns files open: merged into one.
		err = e.runs.Combine(func(runs []disk.Run, w *bufio.Writer) error {
			return e.merge(runs, func(x, y uint64, b []byte) error {
				_, err := writeEntry(w, x, y, b)
				return err
			})
		})
	}
	return err
}

// maxRuns is how many runs are merged at once.
const maxRuns = 64

// writeEntry writes an entry to a run and returns its size there.
func writeEntry(w *bufio.Writer, x, y uint64, b []byte) (int, error) {
	var hdr [3 * binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], x)
	n += binary.PutUvarint(hdr[n:], y)
	n += binary.PutUvarint(hdr[n:], uint64(len(b)))
	w.Write(hdr[:n])
	_, err := w.Write(b)
	return n + len(b), err
}

// entryRun is a spilled run being merged.
type entryRun struct {
	r   *bufio.Reader
	cur entry
	b   []byte
}

func (r *entryRun) next() (bool, error) {
	x, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false, nil
	}
	var y, n uint64
	if err == nil {
		y, err = binary.ReadUvarint(r.r)
	}
	if err == nil {
		n, err = binary.ReadUvarint(r.r)
	}
	if err == nil {
		r.b = slices.Grow(r.b[:0], int(n))[:n]
		_, err = io.ReadFull(r.r, r.b)
	}
	if err != nil {
		return false, fmt.Errorf("reading a spilled run: %w", err)
	}
	r.cur = entry{x: x, y: y, len: uint32(n)}
	return true, nil
}

// each calls fn with every entry in order, held or spilled, and frees the
// buffer and the runs.
func (e *entries) each(fn func(x, y uint64, b []byte) error) error {
	defer e.runs.Remove()
	if e.runs.Len() == 0 {
		e.sort()
		for _, en := range e.ents {
			if err := fn(en.x, en.y, e.bytesOf(en)); err != nil {
				return err
			}
		}
		e.ents, e.arena = nil, nil
		return nil
	}
	if len(e.ents) > 0 {
		if err := e.spill(); err != nil {
			return err
		}
	}
	e.ents, e.arena = nil, nil
	return e.merge(e.runs.Readers(), fn)
}

// merge calls fn with the entries of runs in order.
func (e *entries) merge(from []disk.Run, fn func(x, y uint64, b []byte) error) error {
	var runs []*entryRun
	for _, r := range from {
		er := &entryRun{r: r.R}
		more, err := er.next()
		if err != nil {
			return err
		}
		if more {
			runs = append(runs, er)
		}
	}
	return disk.Merge(runs, func(a, b *entryRun) bool { return e.cmp(a.cur, b.cur, a.b, b.b) < 0 },
		func(r *entryRun) (bool, error) {
			if err := fn(r.cur.x, r.cur.y, r.b); err != nil {
				return false, err
			}
			return r.next()
		})
}

// The orders: occurrences by id, then pair; pair ends by pair; members by
// cluster, then number.
func byBytesThenX(a, b entry, ab, bb []byte) int {
	if c := bytes.Compare(ab, bb); c != 0 {
		return c
	}
	return cmp.Compare(a.x, b.x)
}

func byXThenY(a, b entry, _, _ []byte) int {
	if c := cmp.Compare(a.x, b.x); c != 0 {
		return c
	}
	return cmp.Compare(a.y, b.y)
}

// spiller takes the pairs once the documents pass --memory.
type spiller struct {
	opt   *Options
	occ   *entries // (pair, id)
	pairs uint64
	// For stderr: the documents held when it began, the pairs that took
	// their place, the documents in all, and what went to disk.
	held, converted uint64
	docs            uint64
	runs            int
	bytes           int64
}

func newSpiller(opt *Options) *spiller {
	return &spiller{opt: opt, occ: newEntries(opt.TempDir, "ids", opt.MemoryBytes, byBytesThenX)}
}

// add takes a pair of ids (canonical).
func (s *spiller) add(a, b []byte) error {
	if err := s.occ.add(s.pairs, 0, a); err != nil {
		return err
	}
	if err := s.occ.add(s.pairs, 0, b); err != nil {
		return err
	}
	s.pairs++
	return nil
}

// finish clusters the pairs taken and writes the cluster records.
func (s *spiller) finish(ctx context.Context, w *record.Writer, stats *sizeStats) (clusters int, err error) {
	mem, dir := s.opt.MemoryBytes, s.opt.TempDir
	// 1. Number the ids in their order; each pair's ends get their
	// numbers.
	ids := &disk.Runs{Dir: dir, Pattern: "cluster-idlist-*", What: "ids"}
	defer ids.Remove()
	ends := newEntries(dir, "ends", mem, byXThenY)
	var n uint64
	var last []byte
	err = ids.Spill(func(iw *bufio.Writer) error {
		var hdr [binary.MaxVarintLen64]byte
		return s.occ.each(func(pair, _ uint64, id []byte) error {
			if n == 0 || !bytes.Equal(id, last) {
				last = append(last[:0], id...)
				k := binary.PutUvarint(hdr[:], uint64(len(id)))
				iw.Write(hdr[:k])
				if _, err := iw.Write(id); err != nil {
					return err
				}
				n++
				if n%(1<<16) == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
			}
			return ends.add(pair, n-1, nil)
		})
	})
	s.note(s.occ)
	if err != nil {
		return 0, err
	}
	s.docs = n
	if n >= 1<<32-1 {
		return 0, fmt.Errorf("more than 2^32-2 documents")
	}
	// 2. Join the ends of each pair.
	uf := unionfind.New(int(n))
	var prevPair, prevEnd uint64
	var half bool
	err = ends.each(func(pair, end uint64, _ []byte) error {
		if half && pair == prevPair {
			uf.Union(uint32(prevEnd), uint32(end))
			half = false
			return nil
		}
		prevPair, prevEnd, half = pair, end, true
		return nil
	})
	s.note(ends)
	if err != nil {
		return 0, err
	}
	// 3. Each cluster named by its smallest number: size is reused for
	// the roots' least member.
	for i := range uf.Parent {
		uf.Find(uint32(i))
	}
	for i := range uf.Size {
		uf.Size[i] = unset
	}
	members := newEntries(dir, "members", max(mem-8*int64(n), mem/4), byXThenY)
	r := ids.Readers()[0].R
	var id []byte
	for d := range uint32(n) {
		k, err := binary.ReadUvarint(r)
		if err == nil {
			id = slices.Grow(id[:0], int(k))[:k]
			_, err = io.ReadFull(r, id)
		}
		if err != nil {
			return 0, fmt.Errorf("reading the spilled ids: %w", err)
		}
		if d%(1<<16) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		root := uf.Parent[d]
		if uf.Size[root] == unset {
			uf.Size[root] = d
		}
		if err := members.add(uint64(uf.Size[root]), uint64(d), id); err != nil {
			return 0, err
		}
	}
	uf = unionfind.Forest{}
	var buf, name []byte
	var cur uint64
	size := 0
	flush := func() {
		if size > 0 && stats != nil {
			stats.addSize(name, size)
		}
	}
	err = members.each(func(label, d uint64, id []byte) error {
		if label == d {
			flush()
			name, cur, size = append(name[:0], id...), label, 0
			clusters++
		}
		_ = cur
		size++
		buf = record.AppendMember(buf, name, id)
		if len(buf) >= 1<<16 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		return nil
	})
	s.note(members)
	if err != nil {
		return 0, err
	}
	flush()
	if len(buf) > 0 {
		if _, err := w.Write(buf); err != nil {
			return 0, err
		}
	}
	return clusters, nil
}

func (s *spiller) note(e *entries) { s.runs, s.bytes = s.runs+e.spills, s.bytes+e.bytes }

// report says on standard error what was spilled.
func (s *spiller) report(stderr io.Writer) {
	dir := s.opt.TempDir
	if dir == "" {
		dir = "the system's temporary directory"
	}
	fmt.Fprintf(stderr, "cluster: %d documents passed --memory %s: the %d held became %d pairs, with the %d pairs read after spilled to %d sorted run(s) of %.1f MB in %s, merged\n",
		s.held, stream.FormatSize(s.opt.MemoryBytes), s.held, s.converted, s.pairs-s.converted, s.runs, float64(s.bytes)/1e6, dir)
	if uf := 8 * int64(s.docs); uf > s.opt.MemoryBytes {
		fmt.Fprintf(stderr, "cluster: the union-find forest over the %d documents holds %.1f MB (8 bytes each), beyond --memory %s\n",
			s.docs, float64(uf)/1e6, stream.FormatSize(s.opt.MemoryBytes))
	}
}
