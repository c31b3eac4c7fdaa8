package verify

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// noDoc marks a line that is no pair of two documents (a header, a bad
// line, an id that can't be in the corpus); unscored an intersection not
// yet counted; noRank a document not yet read.
const (
	noDoc    = math.MaxUint32
	unscored = math.MaxUint32
	noRank   = math.MaxUint32
)

// pairTable holds a segment of the candidate pairs in a compact form for
// verify --documents: the documents they name, numbered 0…n-1, and for
// each line of the segment its two documents and, once scored, the size of
// their intersection. The lines themselves are kept apart (as read) and
// scored again from the table when written, so that the output, its
// errors and its order are those of the pairs read.
type pairTable struct {
	// numbered: the ids are arrival numbers (NumberDigits digits), and
	// the documents are nums, ascending; else index maps each id to its
	// document. In numbered tables ids of another form are in no document
	// (they are not in the corpus): others keeps them, for the message
	// when nothing matches.
	numbered bool
	nums     []uint64
	index    map[string]uint32
	others   map[string]struct{}
	// first is the ordinal of the segment's first line; a, b, inter are
	// indexed by ordinal-first. While reading numbered ids, a64 and b64
	// hold the numbers (done turns them into documents), and once done
	// rank finds the documents of dense numbers.
	first     int64
	a, b      []uint32
	a64, b64  numbers
	rank      *numberRank
	inter     []uint32
	npairs    int64
	idBytes   int64
	dataBytes int64
	// extraDocBytes is what each document holds besides docBytes while
	// the table is filtered (bbit.go).
	extraDocBytes int64
	// size is each document's number of distinct shingles, once shingled;
	// seen counts the passes that read it (0: never read).
	size []uint32
	seen []uint32
}

func newPairTable(numbered bool, first int64) *pairTable {
	t := &pairTable{numbered: numbered, first: first}
	if !numbered {
		t.index = map[string]uint32{}
	}
	return t
}

// Memory accounting of the table, in bytes: per line, per pair and per
// document (the map of ids adds its entry and the id).
const (
	lineBytes     = 12               // a, b, inter
	numberedBytes = 16               // a64, b64 while reading
	rankBytes     = 6                // a numbered line's share of rank, at most (numberDocs)
	pairBytes     = 8                // the two entries of the adjacency lists
	docBytes      = 32 + binDocBytes // size, seen, rank, remaining, adjacency offset, number, twin; bins
	mapEntryBytes = 64
)

// bytes is the memory the table holds (or will, once done), its lines read
// as chunks included.
func (t *pairTable) bytes() int64 {
	n := int64(len(t.a)) * lineBytes
	if t.numbered {
		n += int64(t.a64.held+t.b64.held) * numberedBytes / 2
	}
	n += t.npairs * pairBytes
	docs := int64(len(t.nums)) + int64(len(t.index))
	if t.numbered && t.nums == nil {
		docs = 2 * t.npairs // not yet counted: at most two per pair
	}
	if t.numbered {
		n += int64(max(t.a64.n, len(t.a)))*rankBytes + 16
	}
	n += docs*(docBytes+t.extraDocBytes) + int64(len(t.index))*mapEntryBytes + t.idBytes
	return n + t.dataBytes
}

// add notes the pair lines of a chunk read ahead; in a numbered table,
// nl is what parseNumbered found in them.
func (t *pairTable) add(c *stream.Chunk, nl *numberedLines) {
	t.dataBytes += int64(cap(c.Data))
	if t.numbered {
		t.a64.addBlock(nl.a)
		t.b64.addBlock(nl.b)
		t.npairs += nl.npairs
		for _, id := range nl.others {
			if _, ok := t.others[id]; !ok {
				if t.others == nil {
					t.others = map[string]struct{}{}
				}
				t.others[id] = struct{}{}
				t.idBytes += int64(len(id)) + mapEntryBytes
			}
		}
		return
	}
	eachLine(c.Data, func(line []byte) {
		// Every id of a pair line is a document to read, also those of a
		// pair of a document with itself, which is refused when written.
		a, b := uint32(noDoc), uint32(noDoc)
		if !record.IsHeader(line) {
			if x, y, err := record.ParsePair(line); err == nil {
				a, b = t.intern(x), t.intern(y)
			}
		}
		if a != b && a != noDoc {
			t.npairs++
		}
		t.a = append(t.a, a)
		t.b = append(t.b, b)
	})
}

// eachLine calls fn with each line of data, without its line end.
func eachLine(data []byte, fn func(line []byte)) {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		fn(line)
	}
}

// numberedLines is what the pair lines of a chunk hold for a numbered
// table: each line's two arrival numbers (MaxUint64 for a header, a bad
// line, or an id of another form), the pairs of two documents, and the ids
// of another form. It is found apart from the table (parseNumbered), on
// any core, and added to it in order.
type numberedLines struct {
	a, b        []uint64
	npairs      int64
	others      []string
	othersBytes int64
}

// bytes is what nl holds besides its chunk.
func (nl *numberedLines) bytes() int64 {
	return int64(cap(nl.a)+cap(nl.b))*numberedBytes/2 + nl.othersBytes
}

// parseNumbered reads the pair lines of data for a numbered table.
func parseNumbered(data []byte) *numberedLines {
	n := bytes.Count(data, []byte{'\n'}) + 1
	nl := &numberedLines{a: make([]uint64, 0, n), b: make([]uint64, 0, n)}
	eachLine(data, func(line []byte) {
		na, nb := uint64(math.MaxUint64), uint64(math.MaxUint64)
		if x, y, ok := numberPair(line); ok {
			na, nb = x, y
		} else if !record.IsHeader(line) {
			if x, y, err := record.ParsePair(line); err == nil {
				na, nb = nl.number(x), nl.number(y)
			}
		}
		nl.a = append(nl.a, na)
		nl.b = append(nl.b, nb)
		if na != nb && na != math.MaxUint64 && nb != math.MaxUint64 {
			nl.npairs++
		}
	})
	return nl
}

// number returns the arrival number of id, or MaxUint64 for an id of
// another form, which it notes.
func (nl *numberedLines) number(id []byte) uint64 {
	if n, ok := input.ParseNumber(id); ok {
		return n
	}
	nl.others = append(nl.others, string(id))
	nl.othersBytes += int64(len(id)) + 16
	return math.MaxUint64
}

// numberPair reads a line of two arrival numbers and a TAB, as every pair
// line of a dedup job is, as it stands: not cut and checked as two ids
// first. ok is false for any other line.
func numberPair(line []byte) (a, b uint64, ok bool) {
	const n = input.NumberDigits
	if len(line) != 2*n+1 || line[n] != '\t' {
		return 0, 0, false
	}
	a, okA := input.ParseNumber(line[:n])
	b, okB := input.ParseNumber(line[n+1:])
	return a, b, okA && okB
}

func (t *pairTable) intern(id []byte) uint32 {
	if d, ok := t.index[string(id)]; ok {
		return d
	}
	d := uint32(len(t.index))
	t.index[string(id)] = d
	t.idBytes += int64(len(id)) + 16
	return d
}

// done ends the reading: the documents are numbered and the lines point
// at them. The chunks are no longer counted: they are handed out to be
// written.
func (t *pairTable) done(jobs int) {
	if t.numbered {
		t.nums = t.numberDocs()
		t.a = t.lookupAll(t.a64, jobs)
		t.b = t.lookupAll(t.b64, jobs)
		t.a64, t.b64 = numbers{}, numbers{}
	}
	t.inter = make([]uint32, len(t.a))
	for i := range t.inter {
		t.inter[i] = unscored
	}
	n := t.docs()
	t.size = make([]uint32, n)
	t.seen = make([]uint32, n)
}

// lookupAll returns the documents of the numbers of s (lookupNumber), its
// blocks shared out to jobs goroutines.
func (t *pairTable) lookupAll(s numbers, jobs int) []uint32 {
	docs := make([]uint32, s.n)
	starts := make([]int, len(s.blocks)+1)
	for k, b := range s.blocks {
		starts[k+1] = starts[k] + len(b)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(min(jobs, len(s.blocks)), 1) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(s.blocks); k = int(next.Add(1) - 1) {
				out := docs[starts[k]:starts[k+1]]
				for i, n := range s.blocks[k] {
					out[i], _ = t.lookupNumber(n)
				}
			}
		})
	}
	wg.Wait()
	return docs
}

// named is the number of distinct ids the pairs name.
func (t *pairTable) named() int { return t.docs() + len(t.others) }

// docs is the number of documents in some pair.
func (t *pairTable) docs() int {
	if t.numbered {
		return len(t.nums)
	}
	return len(t.index)
}

// lookupNumber returns the document of arrival number n; noDoc when no
// pair names it.
func (t *pairTable) lookupNumber(n uint64) (uint32, bool) {
	if t.rank != nil {
		return t.rank.find(n)
	}
	i, ok := slices.BinarySearch(t.nums, n)
	if !ok {
		return noDoc, false
	}
	return uint32(i), true
}

// numberDocs returns the distinct numbers of a64 and b64, ascending (the
// documents), and where they are dense (their range at most 16 times
// the numbers read, two a line) sets rank up to find them: a bit for each
// number of the range, read in order, in place of a sort and a binary
// search for each. Its words, 8 bytes and a count of 4 for 64 numbers,
// then take at most 6 bytes a line (rankBytes).
func (t *pairTable) numberDocs() []uint64 {
	lo, hi, count := uint64(math.MaxUint64), uint64(0), uint64(0)
	for _, s := range []*numbers{&t.a64, &t.b64} {
		for _, b := range s.blocks {
			for _, n := range b {
				if n != math.MaxUint64 {
					lo, hi, count = min(lo, n), max(hi, n), count+1
				}
			}
		}
	}
	if count == 0 {
		return nil
	}
	if (hi-lo)/64 > count/4 {
		nums := make([]uint64, 0, count)
		for _, s := range []*numbers{&t.a64, &t.b64} {
			for _, b := range s.blocks {
				for _, n := range b {
					if n != math.MaxUint64 {
						nums = append(nums, n)
					}
				}
			}
		}
		slices.Sort(nums)
		return slices.Clip(slices.Compact(nums))
	}
	r := &numberRank{lo: lo, words: make([]uint64, (hi-lo)/64+1)}
	for _, s := range []*numbers{&t.a64, &t.b64} {
		for _, b := range s.blocks {
			for _, n := range b {
				if n != math.MaxUint64 {
					r.words[(n-lo)/64] |= 1 << ((n - lo) % 64)
				}
			}
		}
	}
	r.ranks = make([]uint32, len(r.words))
	docs := 0
	for w, x := range r.words {
		r.ranks[w] = uint32(docs)
		docs += bits.OnesCount64(x)
	}
	nums := make([]uint64, 0, docs)
	for w, x := range r.words {
		for ; x != 0; x &= x - 1 {
			nums = append(nums, lo+uint64(64*w+bits.TrailingZeros64(x)))
		}
	}
	t.rank = r
	return nums
}

// numbers is a list of arrival numbers that grows a block at a time (a
// chunk's), without copying what it holds (a64 and b64 hold one for each
// line).
type numbers struct {
	blocks [][]uint64
	n      int
	held   int // the blocks' capacity
}

// addBlock appends the numbers of b, which it keeps.
func (s *numbers) addBlock(b []uint64) {
	s.blocks = append(s.blocks, b)
	s.n += len(b)
	s.held += cap(b)
}

// numberRank finds documents by their arrival numbers where these are
// dense: a bit for each number from lo, and the count of the bits before
// each word of them.
type numberRank struct {
	lo    uint64
	words []uint64
	ranks []uint32
}

// find returns the document of number n: the count of the numbers below
// it; noDoc when it is none of them.
func (r *numberRank) find(n uint64) (uint32, bool) {
	i := n - r.lo
	if n < r.lo || i/64 >= uint64(len(r.words)) {
		return noDoc, false
	}
	w, bit := r.words[i/64], uint64(1)<<(i%64)
	if w&bit == 0 {
		return noDoc, false
	}
	return r.ranks[i/64] + uint32(bits.OnesCount64(w&(bit-1))), true
}

// lookup returns the document of id, when it is in some pair.
func (t *pairTable) lookup(id []byte) (uint32, bool) {
	if t.numbered {
		n, ok := input.ParseNumber(id)
		if !ok {
			return noDoc, false
		}
		return t.lookupNumber(n)
	}
	d, ok := t.index[string(id)]
	return d, ok
}

// least returns the least id of the documents (bytewise), for messages.
func (t *pairTable) least() string {
	if t.numbered {
		least := ""
		for id := range t.others {
			if least == "" || id < least {
				least = id
			}
		}
		if len(t.nums) > 0 {
			n, _ := input.AppendNumber(nil, int64(t.nums[0]), 1)
			if least == "" || string(n) < least {
				least = string(n)
			}
		}
		return least
	}
	least := ""
	for id := range t.index {
		if least == "" || id < least {
			least = id
		}
	}
	return least
}

// line returns the index of the line at ordinal.
func (t *pairTable) line(ordinal int64) int { return int(ordinal - t.first) }

// scoreCounts returns Jaccard and the containments of two sets of nx and ny
// values sharing inter, as Exact computes them.
func scoreCounts(inter, nx, ny int) (j, cab, cba float64) {
	union := nx + ny - inter
	if union > 0 {
		j = float64(inter) / float64(union)
	}
	if nx > 0 {
		cab = float64(inter) / float64(nx)
	}
	if ny > 0 {
		cba = float64(inter) / float64(ny)
	}
	return j, cab, cba
}
