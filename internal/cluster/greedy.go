package cluster

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/neardup/neardup/internal/minhash"
)

// greedy is Broder's greedy clustering.
//
// A sketch is a set of values: for MinHash and OPH signatures the n pairs
// (position, value), each hashed to 64 bits; for bottom-k samples the
// values. A cluster's representative R is a set of values too: its first
// member's, or with RepresentPopular the s values held by the most members
// (ties to the smaller value; a cluster of one member is represented by its
// s smallest values). A table maps every value of every representative to
// the clusters whose representative holds it.
//
// For a new sketch E, one lookup per value of E finds every cluster that
// shares a value with it and counts |E ∩ R|. Its similarity to a cluster is
// |E ∩ R| / max(|E|, |R|): for MinHash signatures and first members, the
// fraction of positions where they agree, the usual estimate of the Jaccard
// similarity. E joins the cluster of highest similarity if that reaches the
// threshold (ties to the cluster with the smallest name), else it starts a
// new cluster, named by its id, with E as representative. Unlike the leader
// method no candidate is missed: every cluster that shares a value is
// counted. Memory per cluster: its representative's values in the table
// (8 bytes of posting and 16 to 32 of table each), and with popular
// representatives a count for every distinct value of its members.
type greedy struct {
	threshold float64
	tagged    bool
	popular   bool
	s         int

	names    []byte
	nameEnds []uint64
	sizes    []uint32
	repLen   []uint32

	table *keyTable // value → 1 + its first posting, or noPostings
	posts []posting
	free  uint32 // 1 + the first free posting, or 0

	// founders holds, under popular, the values of clusters of one member
	// until a second joins (founderAt[c], or -1).
	founders  []uint64
	founderAt []int64
	pop       map[uint32]*popularRep

	empty   int64
	elems   []uint64
	counts  []uint32
	touched []uint32
}

type posting struct {
	cluster uint32
	next    uint32 // 1 + the next posting of the value, or 0
}

// noPostings marks a value whose postings all went: its slot stays.
const noPostings = ^uint32(0)

// popularRep counts the values of a cluster's members. The high bit of a
// count says the value is in the representative.
type popularRep struct {
	count map[uint64]uint32
	// weakest is the representative's weakest value (fewest members, then
	// largest) when it was last chosen; counts only grow, so a value that
	// does not beat it can't enter.
	weakCount uint32
	weakValue uint64
}

const inRep = 1 << 31

func newGreedy(opt Options, kind sketchKind) *greedy {
	g := &greedy{
		threshold: opt.Threshold,
		tagged:    kind.method != "bottomk",
		popular:   opt.Represent == RepresentPopular,
		s:         opt.S,
		table:     newKeyTable(),
		pop:       map[uint32]*popularRep{},
	}
	if g.s == 0 {
		g.s = max(kind.n, 1)
	}
	return g
}

func (g *greedy) name(c uint32) []byte {
	var start uint64
	if c > 0 {
		start = g.nameEnds[c-1]
	}
	return g.names[start:g.nameEnds[c]]
}

// elements turns a sketch into its set of values.
func (g *greedy) elements(values []uint64) []uint64 {
	g.elems = g.elems[:0]
	if !g.tagged {
		return append(g.elems, values...)
	}
	for i, v := range values {
		g.elems = append(g.elems, minhash.Mix64(v^uint64(i+1)*0x9e3779b97f4a7c15))
	}
	return g.elems
}

func (g *greedy) assign(id []byte, size uint64, values []uint64) []byte {
	if size == 0 || len(values) == 0 {
		g.empty++
		return id
	}
	elems := g.elements(values)
	g.table.prefetch(elems)
	for _, e := range elems {
		for p := g.table.get(e); p != 0 && p != noPostings; p = g.posts[p-1].next {
			c := g.posts[p-1].cluster
			if g.counts[c] == 0 {
				g.touched = append(g.touched, c)
			}
			g.counts[c]++
		}
	}
	best, bestSim := -1, 0.0
	for _, c := range g.touched {
		s := float64(g.counts[c]) / float64(max(len(elems), int(g.repLen[c])))
		g.counts[c] = 0
		if s < g.threshold {
			continue
		}
		if best < 0 || s > bestSim || s == bestSim && cmp.Or(bytes.Compare(g.name(c), g.name(uint32(best))), cmp.Compare(c, uint32(best))) < 0 {
			best, bestSim = int(c), s
		}
	}
	g.touched = g.touched[:0]
	if best >= 0 {
		c := uint32(best)
		g.sizes[c]++
		if g.popular {
			g.join(c, elems)
		}
		return g.name(c)
	}
	c := uint32(len(g.sizes))
	g.names = append(g.names, id...)
	g.nameEnds = append(g.nameEnds, uint64(len(g.names)))
	g.sizes = append(g.sizes, 1)
	g.counts = append(g.counts, 0)
	rep := elems
	if g.popular {
		g.founderAt = append(g.founderAt, int64(len(g.founders)))
		g.founders = append(g.founders, elems...)
		if len(rep) > g.s {
			rep = slices.Clone(rep)
			slices.Sort(rep)
			rep = rep[:g.s]
		}
	}
	for _, e := range rep {
		g.addPosting(e, c)
	}
	g.repLen = append(g.repLen, uint32(len(rep)))
	return id
}

func (g *greedy) addPosting(e uint64, c uint32) {
	head := g.table.get(e)
	if head == noPostings {
		head = 0
	}
	var p uint32
	if g.free != 0 {
		p = g.free
		g.free = g.posts[p-1].next
		g.posts[p-1] = posting{cluster: c, next: head}
	} else {
		g.posts = append(g.posts, posting{cluster: c, next: head})
		p = uint32(len(g.posts))
	}
	g.table.set(e, p)
}

func (g *greedy) removePosting(e uint64, c uint32) {
	head := g.table.get(e)
	prev := uint32(0)
	for p := head; p != 0 && p != noPostings; prev, p = p, g.posts[p-1].next {
		if g.posts[p-1].cluster != c {
			continue
		}
		next := g.posts[p-1].next
		if prev == 0 {
			if next == 0 {
				next = noPostings
			}
			g.table.set(e, next)
		} else {
			g.posts[prev-1].next = next
		}
		g.posts[p-1].next = g.free
		g.free = p
		return
	}
}

// join counts a new member's values in a popular cluster and chooses the
// representative again when one of them may enter it.
func (g *greedy) join(c uint32, elems []uint64) {
	p := g.pop[c]
	if p == nil {
		// The second member: count the founder's values.
		at := g.founderAt[c]
		end := len(g.founders)
		if int(c)+1 < len(g.founderAt) {
			end = int(g.founderAt[c+1])
		}
		founder := slices.Clone(g.founders[at:end])
		slices.Sort(founder)
		p = &popularRep{count: make(map[uint64]uint32, 2*len(founder))}
		for i, e := range founder {
			if i < g.s {
				p.count[e] = 1 | inRep
				p.weakCount, p.weakValue = 1, e
			} else {
				p.count[e] = 1
			}
		}
		g.pop[c] = p
	}
	need := false
	for _, e := range elems {
		v := p.count[e]
		n := v&^inRep + 1
		p.count[e] = n | v&inRep
		if v&inRep == 0 && (int(g.repLen[c]) < g.s || n > p.weakCount || n == p.weakCount && e < p.weakValue) {
			need = true
		}
	}
	if need {
		g.choose(c, p)
	}
}

// choose makes the s values of most members the representative of c and
// updates the table.
func (g *greedy) choose(c uint32, p *popularRep) {
	type vc struct {
		v uint64
		n uint32
	}
	all := make([]vc, 0, len(p.count))
	for v, n := range p.count {
		all = append(all, vc{v, n &^ inRep})
	}
	slices.SortFunc(all, func(a, b vc) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return cmp.Compare(a.v, b.v)
	})
	k := min(g.s, len(all))
	for i, x := range all {
		was := p.count[x.v]&inRep != 0
		now := i < k
		switch {
		case was && !now:
			g.removePosting(x.v, c)
			p.count[x.v] = x.n
		case now && !was:
			g.addPosting(x.v, c)
			p.count[x.v] = x.n | inRep
		}
	}
	g.repLen[c] = uint32(k)
	if k > 0 {
		p.weakCount, p.weakValue = all[k-1].n, all[k-1].v
	}
}

func (g *greedy) stats(s *sizeStats) {
	for i, n := range g.sizes {
		s.addSize(g.name(uint32(i)), int(n))
	}
	for range g.empty {
		s.addSize(nil, 1)
	}
}

// held returns the bytes the clusters' structures hold and their number.
func (g *greedy) held() (int64, int64, string) {
	total := g.table.bytes() + 8*int64(cap(g.posts)) + int64(cap(g.names)) + 8*int64(cap(g.nameEnds)) + 12*int64(cap(g.sizes)) + 8*int64(cap(g.founders))
	for _, p := range g.pop {
		total += 16 * int64(len(p.count))
	}
	return total, int64(len(g.sizes)), "clusters"
}
