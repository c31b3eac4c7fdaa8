package minhash

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// pairGen draws pairs of sets of 64-bit values with a known overlap. The
// values are uniform (like shingle hashes) and distinct within a pair, so the
// Jaccard similarity of a pair is exactly what was asked for.
type pairGen struct {
	rng   *rand.Rand
	union []uint64
	a, b  []uint64
	table []uint64 // open addressing, 0 = free: checks distinctness
}

func newPairGen(seed uint64) *pairGen {
	return &pairGen{rng: rand.New(rand.NewPCG(seed, 0x853c49e6748fea9b))}
}

// distinct fills g.union with u distinct non-zero random values.
func (g *pairGen) distinct(u int) []uint64 {
	size := 1 << bits.Len(uint(2*u))
	if len(g.table) < size {
		g.table = make([]uint64, size)
	}
	table := g.table[:size]
	clear(table)
	mask := uint64(size - 1)
	g.union = g.union[:0]
	for len(g.union) < u {
		x := g.rng.Uint64()
		if x == 0 {
			continue
		}
		i := x & mask
		for table[i] != 0 && table[i] != x {
			i = (i + 1) & mask
		}
		if table[i] == x {
			continue // a repeat: draw again
		}
		table[i] = x
		g.union = append(g.union, x)
	}
	return g.union
}

// pair returns sets A and B with |A ∪ B| = u and |A ∩ B| = inter, the rest
// of the union split between A and B as evenly as possible: J = inter/u.
// The slices are reused by the next call.
func (g *pairGen) pair(u, inter int) (a, b []uint64) {
	v := g.distinct(u)
	onlyA := (u - inter) / 2
	g.a = append(append(g.a[:0], v[:inter]...), v[inter:inter+onlyA]...)
	g.b = append(append(g.b[:0], v[:inter]...), v[inter+onlyA:]...)
	// The order of a set's values must not matter; shuffle so that nothing
	// depends on the shared values coming first.
	g.rng.Shuffle(len(g.a), func(i, j int) { g.a[i], g.a[j] = g.a[j], g.a[i] })
	g.rng.Shuffle(len(g.b), func(i, j int) { g.b[i], g.b[j] = g.b[j], g.b[i] })
	return g.a, g.b
}

// containment returns sets A and B with |A| = size, |A ∩ B| = inter and
// |B \ A| = extra: c(A,B) = inter/size.
func (g *pairGen) containment(size, inter, extra int) (a, b []uint64) {
	v := g.distinct(size + extra)
	g.a = append(g.a[:0], v[:size]...)
	g.b = append(append(g.b[:0], v[size-inter:size]...), v[size:]...)
	return g.a, g.b
}

// summary accumulates the mean and standard deviation of a sample.
type summary struct {
	n          int
	sum, sumSq float64
}

func (s *summary) add(x float64) {
	s.n++
	s.sum += x
	s.sumSq += x * x
}

func (s *summary) mean() float64 { return s.sum / float64(s.n) }

// sd is the sample standard deviation.
func (s *summary) sd() float64 {
	m := s.mean()
	v := (s.sumSq - float64(s.n)*m*m) / float64(s.n-1)
	return math.Sqrt(max(v, 0))
}

// sortedCopy returns set ascending, as a shingle record holds it.
func sortedCopy(set []uint64) []uint64 {
	s := slices.Clone(set)
	slices.Sort(s)
	return s
}
