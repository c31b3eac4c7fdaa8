package verify

import (
	"cmp"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// passes plans the passes of verify --documents over the documents and
// scores the pairs of a pairTable as the documents come, in the order they
// are read (their rank).
//
// A pass holds a block of documents: from the first document not done
// (start), each document read that has a pair not yet scored is shingled
// and held, as long as what is held fits in the budget; the first that
// does not fit closes the block, and the documents after it are shingled
// only when a partner is held. A document read is scored at once against
// each of its partners held (they came before it), and a held document is
// let go (evicted) when its last pair is scored. So a pass scores every
// pair whose first document is in its block, and the next pass starts
// where the block closed; with the pairs of a dedup (mostly between near
// neighbours, or with the first of a group of copies) most of a corpus
// goes in one pass. A pass always holds its first document, however large,
// so that each pass makes progress.
type passes struct {
	t *pairTable
	// The lines of document d's pairs are adj[off[d]:off[d+1]].
	off, adj []uint32
	// remaining counts each document's pairs not yet scored; active is
	// remaining > 0 when the pass began (what the workers read).
	remaining []uint32
	active    []bool
	// rank is each document's place in the order the documents are read
	// (noRank before it was first read), written by the sink and read by
	// the workers (atomically).
	rank     []uint32
	nextRank uint32
	held     map[uint32]*heldDoc
	group    []groupTask // take's, for the partners of a document
	bounded  []uint32    // take's, the partners histBound left out
	// boundedPairs counts the pairs histBound left out, and copies the
	// documents taken whose text was a partner's held (twin).
	boundedPairs, copies int64
	// twins is held again for the workers, with each held document's text
	// key, by document (nil when not held): a document read whose text is
	// a held partner's takes its set (twin).
	twins []atomic.Pointer[twin]
	// heldBytes is what held holds; maxHeld its most in any pass.
	heldBytes, maxHeld, budget int64
	start                      uint32
	// threshold and containment are verify's: a pair that cannot reach
	// the threshold is counted only as far as that is certain (need).
	threshold   float64
	containment bool
	// closed is the rank of the document that closed the block (noRank
	// while it is open).
	closed atomic.Uint32
	pass   int
	// score counts the intersections (off the sink, when it has a pool).
	score *scorer
}

// heldDocBytes is the memory of a held document besides its values: the
// map entry and the slice, and its twin.
const heldDocBytes = 96

// heldCost is what a document of n shingles held costs: its set, its
// difference from a reference at most (heldDoc), its histogram, and
// heldDocBytes.
func heldCost(n int) int64 { return int64(n+diffLimit(n))*8 + int64(histBytes(n)) + heldDocBytes }

// A twin is a held document's set and the key of its text (textKey).
type twin struct {
	key uint64
	set []uint64
}

// textKey is the key of a text that finds its exact copies among a
// document's partners: a hash of 64 bits, never 0 (no key). Two texts that
// differ have the same key with probability 2^-63, and a key is compared
// only with those of a document's few partners.
func textKey(d *xxhash.Digest, text []byte) uint64 {
	d.ResetWithSeed(0x9e3779b97f4a7c15)
	d.Write(text)
	return d.Sum64() | 1
}

// twin returns the set of a partner of document d held with the text of
// key, nil when there is none: the same text has the same set, so d need
// not be shingled. The workers call it, ahead of the sink.
func (p *passes) twin(d uint32, key uint64) []uint64 {
	for _, i := range p.adj[p.off[d]:p.off[d+1]] {
		if tw := p.twins[p.partner(int(i), d)].Load(); tw != nil && tw.key == key {
			return tw.set
		}
	}
	return nil
}

func newPasses(t *pairTable, budget int64) *passes {
	n := t.docs()
	p := &passes{t: t, budget: budget, off: make([]uint32, n+1), remaining: make([]uint32, n),
		rank: make([]uint32, n), held: map[uint32]*heldDoc{}, twins: make([]atomic.Pointer[twin], n),
		score: newScorer(0)}
	for i, a := range t.a {
		if b := t.b[i]; isPair(a, b) && t.inter[i] == unscored {
			p.off[a+1]++
			p.off[b+1]++
		}
	}
	for d := range n {
		p.remaining[d] = p.off[d+1]
		p.off[d+1] += p.off[d]
	}
	p.adj = make([]uint32, p.off[n])
	fill := slices.Clone(p.off[:n])
	for i, a := range t.a {
		if b := t.b[i]; isPair(a, b) && t.inter[i] == unscored {
			p.adj[fill[a]] = uint32(i)
			fill[a]++
			p.adj[fill[b]] = uint32(i)
			fill[b]++
		}
	}
	for d := range p.rank {
		p.rank[d] = noRank
	}
	p.closed.Store(noRank)
	return p
}

// isPair tells whether a line names two documents to score.
func isPair(a, b uint32) bool { return a != b && a != noDoc && b != noDoc }

// begin starts a pass.
func (p *passes) begin() {
	p.pass++
	p.active = make([]bool, len(p.remaining))
	for d, n := range p.remaining {
		p.active[d] = n > 0
	}
	p.closed.Store(noRank)
}

// partner returns the other document of line i, d being one.
func (p *passes) partner(i int, d uint32) uint32 {
	if a := p.t.a[i]; a != d {
		return a
	}
	return p.t.b[i]
}

// needs tells a worker whether document d, read in this pass, must be
// shingled: it has a pair not yet scored and is not done, and may be held
// (the block is open, as far as the worker knows) or has a partner that may
// be held (one in the block). Called as the workers go, ahead of the sink.
func (p *passes) needs(d uint32) bool {
	if !p.active[d] {
		return false
	}
	if r := atomic.LoadUint32(&p.rank[d]); r != noRank && r < p.start {
		return false // its pairs with documents present are all scored
	}
	c := p.closed.Load()
	if c == noRank {
		return true
	}
	// Ranks below c were all given before c was published.
	for _, i := range p.adj[p.off[d]:p.off[d+1]] {
		if r := atomic.LoadUint32(&p.rank[p.partner(int(i), d)]); r >= p.start && r < c {
			return true
		}
	}
	return false
}

// errRepeated is a document read twice in a pass.
type errRepeated struct{}

func (errRepeated) Error() string { return "appears more than once" }

// take is the sink's: document d was read, in order, with its shingle set
// and its histogram when it was shingled (has) and the key of its text (0:
// none). It scores d's pairs with the documents held and holds d when the
// block is open and it has pairs left. A pair whose histograms leave it
// below need is not merged: its count is their bound (histBound).
func (p *passes) take(d uint32, set []uint64, hist []uint8, has bool, key uint64) error {
	if p.t.seen[d] == uint32(p.pass) {
		return errRepeated{}
	}
	p.t.seen[d] = uint32(p.pass)
	if p.rank[d] == noRank {
		atomic.StoreUint32(&p.rank[d], p.nextRank)
		p.nextRank++
	}
	if !has {
		return nil
	}
	if uint64(len(set)) > pending-1 {
		return fmt.Errorf("a document of %d distinct shingles: verify --documents counts up to %d", len(set), uint32(pending-1))
	}
	p.t.size[d] = uint32(len(set))
	if key != 0 && p.twin(d, key) != nil {
		// Counted here, in input order, where what is held does not
		// depend on how far the workers ran ahead.
		p.copies++
	}
	// d's partners held are counted at once, through one of the first
	// read of them when they are several (scoreGroup).
	group := p.group[:0]
	for _, i := range p.adj[p.off[d]:p.off[d+1]] {
		if atomic.LoadUint32(&p.t.inter[i]) != unscored {
			continue // scored, or under way
		}
		x := p.partner(int(i), d)
		h, ok := p.held[x]
		if !ok {
			continue
		}
		g := groupTask{line: i, x: x, held: h, need: need(len(set), len(h.set), p.threshold, p.containment)}
		if n, ok := histBound(hist, h.hist); ok && n < g.need {
			atomic.StoreUint32(&p.t.inter[i], uint32(n))
			p.bounded = append(p.bounded, x)
			continue
		}
		group = append(group, g)
	}
	if len(group) < minGroup {
		for _, g := range group {
			p.score.add(p.t.inter, g.line, set, g.held.set, g.need)
		}
	} else {
		tasks := slices.Clone(group)
		refs := slices.Clone(tasks)
		slices.SortFunc(refs, func(a, b groupTask) int { return cmp.Compare(p.rank[a.x], p.rank[b.x]) })
		p.score.addGroup(p.t.inter, set, refs[:groupRefs], tasks)
	}
	for _, g := range group {
		p.done(d, g.x)
	}
	for _, x := range p.bounded {
		p.done(d, x)
	}
	p.boundedPairs += int64(len(p.bounded))
	p.group, p.bounded = group, p.bounded[:0]
	if p.remaining[d] == 0 || p.rank[d] < p.start || p.closed.Load() != noRank {
		return nil
	}
	cost := heldCost(len(set))
	if len(p.held) > 0 && p.heldBytes+cost > p.budget {
		p.closed.Store(p.rank[d])
		return nil
	}
	h := &heldDoc{set: set, hist: slices.Clone(hist)}
	p.held[d] = h
	if key != 0 {
		p.twins[d].Store(&twin{key: key, set: h.set})
	}
	p.heldBytes += cost
	p.maxHeld = max(p.maxHeld, p.heldBytes)
	return nil
}

// minHistPairs is the fewest pairs a document has in a part of the pairs
// for its set to get a histogram (appendHist, about a nanosecond a value):
// a bound saves a merge only where a pair is below the threshold, and the
// documents of one or two pairs are mostly those of a page and its copy
// (on 200,000 crawl documents 512 pairs of 66,566 were bounded; on make
// speed's corpus, 44 pairs a document, 88 %).
const minHistPairs = 4

// histWanted tells a worker whether document d's set gets a histogram: it
// has minHistPairs pairs or more in this part of the pairs.
func (p *passes) histWanted(d uint32) bool { return p.off[d+1]-p.off[d] >= minHistPairs }

// done counts the pair of d and x, x held, as scored: x is let go once it
// has no pair left.
func (p *passes) done(d, x uint32) {
	p.remaining[d]--
	if p.remaining[x]--; p.remaining[x] == 0 {
		p.evict(x)
	}
}

func (p *passes) evict(x uint32) {
	p.heldBytes -= heldCost(len(p.held[x].set))
	delete(p.held, x)
	p.twins[x].Store(nil)
}

// idle tells whether the pass can stop: its block is closed and nothing is
// held, so no document after can be scored in it.
func (p *passes) idle() bool { return p.closed.Load() != noRank && len(p.held) == 0 }

// end ends a pass (which read the documents to the end, or stopped idle)
// and tells whether another is needed: the block was closed and a pair of
// two documents read is not scored, among the pairs of docs (nil: all). A
// pair with a document never read (not in the corpus) is left unscored.
func (p *passes) end(docs []uint32) (more bool) {
	p.score.wait()
	for x := range p.held {
		p.evict(x)
	}
	c := p.closed.Load()
	if c == noRank {
		return false
	}
	p.start = c
	t := p.t
	open := func(i uint32) bool {
		a, b := t.a[i], t.b[i]
		return isPair(a, b) && t.inter[i] == unscored && t.seen[a] > 0 && t.seen[b] > 0
	}
	if docs == nil {
		for i := range t.a {
			if open(uint32(i)) {
				return true
			}
		}
		return false
	}
	for _, d := range docs {
		if slices.ContainsFunc(p.adj[p.off[d]:p.off[d+1]], open) {
			return true
		}
	}
	return false
}
