package keep

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// The arrival-order rule when the ids are arrival numbers (ids=number
// from=N, not --containment): a document's number is its place in the
// input, so of a pair the greater number is the later document, and it is
// dropped, via its most similar partner (ties to the smallest number, the
// earliest: numbers below N, of older batches, come first). The pairs are
// grouped by their later document in a buffer of --memory, spilled as
// sorted runs to --temp-dir when full and merged; the merge decides the
// dropped documents in order and finds their kept document along the
// chain (the via's, decided before it). What is held after: a bit per
// arrival number between the least and the greatest in a pair, and 32
// bytes per dropped document (its number, via, kept document, similarity
// and pairs with older batches), whatever the ids' length or the pairs'
// number; with the kept rule (keptrule.go), 12 bytes more per document
// paired with an older batch and 8 per older document dropped (--dropped).

// numPair is a pair of arrival numbers, a < b, with its similarity.
type numPair struct {
	b, a uint64
	sim  float32
}

// numPairSize is a numPair's size in memory (padded) and numPairRecord in
// a spilled run.
const (
	numPairSize   = 24
	numPairRecord = 20
)

// numPairLess orders pairs by their later document, then the most similar
// first, then the earliest partner: a document's first pair is its via.
func numPairCompare(x, y numPair) int {
	switch {
	case x.b != y.b:
		return cmp.Compare(x.b, y.b)
	case x.sim != y.sim:
		if x.sim > y.sim {
			return -1
		}
		return 1
	}
	return cmp.Compare(x.a, y.a)
}

// numbered holds the rule's pairs while they are read, and its decisions
// once they are.
type numbered struct {
	from   uint64
	memory int64
	buf    []numPair
	runs   disk.Runs
	spills int
	spillB int64

	pairs  int64
	lo, hi uint64 // the least and greatest number in a pair
	// inPair has bit n-lo set for every number n in a pair.
	inPair []uint64

	// The dropped documents in the input, by number, with their via, the
	// kept document their chain ends at, the similarity to the via and
	// their pairs with older batches.
	drop, via, root []uint64
	sim             []float32
	ext             []uint32

	metIDs, met, external int64
	// ranked: the numbers are ranks (ranked.go), not arrival numbers.
	ranked bool
	// keptOnly applies the kept rule (keptrule.go); dropped are the
	// numbers before the input that earlier batches dropped, sorted.
	keptOnly bool
	dropped  []uint64
	// extDoc are the documents with pairs with older batches, by
	// number, and extN their number of such pairs (the kept rule: ext
	// holds them for the dropped documents otherwise).
	extDoc []uint64
	extN   []uint32
}

func newNumbered(from uint64, memory int64, tempDir string) *numbered {
	return &numbered{from: from, memory: memory, lo: math.MaxUint64,
		runs: disk.Runs{Dir: tempDir, Pattern: "keep-pairs-*", What: "pairs"}}
}

// add takes a pair of arrival numbers.
func (n *numbered) add(a, b uint64, sim float32) error {
	if a > b {
		a, b = b, a
	}
	n.lo, n.hi = min(n.lo, a), max(n.hi, b)
	n.pairs++
	if len(n.buf) == cap(n.buf) {
		// Growing holds the old array beside the new: it grows within
		// --memory (stream.BufferFloor at least), and spills when it
		// can't grow by half.
		old := cap(n.buf)
		c := max(2*old, 1024)
		if room := int(max(n.memory, stream.BufferFloor)/numPairSize) - old; c > room {
			c = room
		}
		if len(n.buf) > 0 && c < old*3/2 {
			if err := n.spill(); err != nil {
				return err
			}
		} else {
			n.buf = slices.Grow(n.buf, max(c, 1)-len(n.buf))
		}
	}
	n.buf = append(n.buf, numPair{b: b, a: a, sim: sim})
	return nil
}

// spill writes the buffer as a sorted run.
func (n *numbered) spill() error {
	slices.SortFunc(n.buf, numPairCompare)
	err := n.runs.Spill(func(w *bufio.Writer) error {
		var rec [numPairRecord]byte
		for _, p := range n.buf {
			binary.BigEndian.PutUint64(rec[0:], p.b)
			binary.BigEndian.PutUint64(rec[8:], p.a)
			binary.BigEndian.PutUint32(rec[16:], math.Float32bits(p.sim))
			if _, err := w.Write(rec[:]); err != nil {
				return err
			}
		}
		return nil
	})
	n.spills++
	n.spillB += int64(len(n.buf)) * numPairRecord
	n.buf = n.buf[:0]
	return err
}

// numRun is a spilled run being merged.
type numRun struct {
	r   *bufio.Reader
	cur numPair
}

func (r *numRun) next() (bool, error) {
	var rec [numPairRecord]byte
	if _, err := io.ReadFull(r.r, rec[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fmt.Errorf("reading spilled pairs: %w", err)
	}
	r.cur = numPair{b: binary.BigEndian.Uint64(rec[0:]), a: binary.BigEndian.Uint64(rec[8:]),
		sim: math.Float32frombits(binary.BigEndian.Uint32(rec[16:]))}
	return true, nil
}

// decide takes every pair in order, spilled or held, and decides the
// dropped documents.
func (n *numbered) decide() error {
	defer n.runs.Remove()
	if n.pairs > 0 {
		words := (n.hi-n.lo)/64 + 1
		if int64(words) > n.memory/8 && n.ranked {
			return status.Usagef("the pairs' ranks (a place in the input, or before it for an id not in it) run from %d to %d: a bit for each is %.1f MB, more than --memory %s", n.lo, n.hi, float64(words*8)/1e6, stream.FormatSize(n.memory))
		}
		if int64(words) > n.memory/8 {
			// Arrival numbers of one corpus are dense: these span more
			// documents than --memory has bits.
			return status.Usagef("the pairs' arrival numbers run from %d to %d: a bit for each is %.1f MB, more than --memory %s", n.lo, n.hi, float64(words*8)/1e6, stream.FormatSize(n.memory))
		}
		n.inPair = make([]uint64, words)
	}
	if n.runs.Len() == 0 {
		slices.SortFunc(n.buf, numPairCompare)
		for _, p := range n.buf {
			n.take(p)
		}
		n.buf = nil
		return nil
	}
	if len(n.buf) > 0 {
		if err := n.spill(); err != nil {
			return err
		}
	}
	n.buf = nil
	var runs []*numRun
	for _, r := range n.runs.Readers() {
		nr := &numRun{r: r.R}
		more, err := nr.next()
		if err != nil {
			return err
		}
		if more {
			runs = append(runs, nr)
		}
	}
	return disk.Merge(runs, func(x, y *numRun) bool { return numPairCompare(x.cur, y.cur) < 0 },
		func(r *numRun) (bool, error) {
			n.take(r.cur)
			return r.next()
		})
}

// take is the next pair in order: the first of its later document is its
// via.
func (n *numbered) take(p numPair) {
	if n.keptOnly {
		n.takeKept(p)
		return
	}
	n.setInPair(p.a)
	n.setInPair(p.b)
	if p.b < n.from {
		return // two documents of older batches: never met
	}
	last := len(n.drop) - 1
	if last >= 0 && n.drop[last] == p.b {
		if p.a < n.from {
			n.ext[last]++
		}
		return
	}
	root := p.a
	if p.a >= n.from {
		if i, ok := slices.BinarySearch(n.drop, p.a); ok {
			root = n.root[i]
		}
	}
	ext := uint32(0)
	if p.a < n.from {
		ext = 1
	}
	n.drop = append(n.drop, p.b)
	n.via = append(n.via, p.a)
	n.root = append(n.root, root)
	n.sim = append(n.sim, p.sim)
	n.ext = append(n.ext, ext)
}

func (n *numbered) setInPair(v uint64) {
	i := v - n.lo
	n.inPair[i/64] |= 1 << (i % 64)
}

// member says whether arrival number v is in a pair.
func (n *numbered) member(v uint64) bool {
	if n.inPair == nil || v < n.lo || v > n.hi {
		return false
	}
	i := v - n.lo
	return n.inPair[i/64]&(1<<(i%64)) != 0
}

// ids is the number of distinct arrival numbers in pairs.
func (n *numbered) ids() int {
	c := 0
	for _, w := range n.inPair {
		c += bits.OnesCount64(w)
	}
	return c
}

// decideDoc says whether document v, in a pair, stays, and when it does
// not, its via, similarity and kept document.
func (n *numbered) decideDoc(v uint64) (stays bool, via, root uint64, sim float64) {
	n.met++
	if j, ok := slices.BinarySearch(n.extDoc, v); ok {
		n.external += int64(n.extN[j])
	}
	i := sort.Search(len(n.drop), func(i int) bool { return n.drop[i] >= v })
	if i == len(n.drop) || n.drop[i] != v {
		return true, v, v, math.NaN()
	}
	n.external += int64(n.ext[i])
	return false, n.via[i], n.root[i], float64(n.sim[i])
}

// report says on standard error what was spilled.
func (n *numbered) report(stderr io.Writer, dir string) {
	if n.spills == 0 {
		return
	}
	if dir == "" {
		dir = "the system's temporary directory"
	}
	fmt.Fprintf(stderr, "keep: %d pairs beyond --memory %s: spilled to %d sorted run(s) of %.1f MB in %s, merged\n",
		n.pairs, stream.FormatSize(n.memory), n.spills, float64(n.spillB)/1e6, dir)
}

// appendNumber appends arrival number v as an id.
func appendNumber(dst []byte, v uint64) []byte {
	var buf [input.NumberDigits]byte
	for i := len(buf) - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:]...)
}

// numberedLoader holds the pairs of the numbered rule.
type numberedLoader struct {
	o *Options
	// from is the arrival number of the first document, as the headers
	// before the first pair say.
	from int64
	n    *numbered
}

func (l *numberedLoader) add(s *record.Scored, _ record.Pos) (pairLoader, error) {
	a, okA := input.ParseNumber(s.A)
	b, okB := input.ParseNumber(s.B)
	if !okA || !okB {
		notOne := s.A
		if okA {
			notOne = s.B
		}
		return nil, record.Bad("the ids are arrival numbers (ids=number in the shingle header, or --number-from): %s is not one (%d digits)", notOne, input.NumberDigits)
	}
	return l, l.n.add(a, b, float32(s.J))
}

func (l *numberedLoader) rule(ctx context.Context) (rule, error) {
	if r := l.o.reading; !r.Number || r.NumberFrom != l.from {
		return nil, status.Usagef("%s: a shingle header after the first pair reads the documents in another way than those before it (arrival numbers from %d): put the header lines first", l.o.Pairs, l.from)
	}
	l.n.keptOnly = l.o.Rule == RuleKept
	if err := l.n.loadDropped(ctx, l.o); err != nil {
		return nil, err
	}
	return &numberedRule{n: l.n, file: l.o.Pairs, tempDir: l.o.TempDir}, l.n.decide()
}

// numberedRule is the arrival-order rule for arrival numbers: one pass,
// the pairs decided as they are read.
type numberedRule struct {
	ruleDefaults
	n       *numbered
	file    string
	tempDir string
	// ids holds the kept, dropped and via ids of a decision.
	ids []byte
}

func (r *numberedRule) find(id []byte) (int64, uint32, uint64) {
	if v, ok := input.ParseNumber(id); ok && r.n.member(v) {
		return 0, 0, v
	}
	return notInCluster, 0, 0
}

func (r *numberedRule) ready(stderr io.Writer) error {
	r.n.report(stderr, r.tempDir)
	return nil
}

func (r *numberedRule) decide(d doc, _ int64, _ []byte) (verdict, error) {
	if d.cluster < 0 {
		return verdict{}, nil
	}
	r.n.metIDs++
	stays, via, root, sim := r.n.decideDoc(d.num)
	r.ids = appendNumber(appendNumber(appendNumber(r.ids[:0], root), d.num), via)
	n := input.NumberDigits
	return verdict{in: true, stays: stays, name: r.ids[:n],
		dropped: record.Dropped{Dropped: r.ids[n : 2*n], Via: r.ids[2*n:], Similarity: sim}}, nil
}

// idsMet: the numbers in pairs are checked only for none among the
// documents.
func (r *numberedRule) idsMet() idCount {
	c := idCount{file: r.file, total: r.n.ids(), first: func() []byte { return appendNumber(nil, r.n.lo) }}
	if r.n.metIDs == 0 {
		c.missing = c.total
	}
	return c
}

// repeats: arrival numbers repeat no id.
func (r *numberedRule) repeats() int64 { return 0 }

func (r *numberedRule) summary(stderr io.Writer, t *tally, stats bool) {
	reportArrival(stderr, r.n.external)
	t.pairStats(stderr, r.n.pairs, stats)
}
