package lsh

import (
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup/internal/simhash"
)

func TestHammingLayout(t *testing.T) {
	h, err := NewHamming(64, 3, 6)
	if err != nil {
		t.Fatal(err)
	}
	if h.WidthList() != "11,11,11,11,10,10" {
		t.Errorf("widths %s", h.WidthList())
	}
	if len(h.Tables) != 20 {
		t.Errorf("%d tables, want C(6,3) = 20", len(h.Tables))
	}
	if lo, hi := h.KeyBitsRange(); lo != 31 || hi != 33 {
		t.Errorf("keys of %d-%d bits, want 31-33 (Manku et al.)", lo, hi)
	}
	// Table 0 chooses the first blocks: it is the identity.
	x := uint64(0x0123456789abcdef)
	if h.Permute64(0, x) != x {
		t.Errorf("table 0 permutes: %016x", h.Permute64(0, x))
	}
	p, err := Pigeonhole(64, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tables) != 4 || p.WidthList() != "16,16,16,16" {
		t.Errorf("pigeonhole k=3: %d tables of %s", len(p.Tables), p.WidthList())
	}
	for i, tb := range p.Tables {
		if tb.KeyBits != 16 || tb.Order[0] != i {
			t.Errorf("pigeonhole table %d: key blocks %v, %d bits", i, tb.Order, tb.KeyBits)
		}
	}
	for _, bad := range [][3]int{{32, 3, 6}, {64, 3, 3}, {64, -1, 4}, {64, 8, 30}, {128, 3, 65}} {
		if _, err := NewHamming(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("NewHamming(%d, %d, %d) accepted", bad[0], bad[1], bad[2])
		}
	}
}

func randFP(rng *rand.Rand, f int) simhash.Fingerprint {
	fp := simhash.Fingerprint{Hi: rng.Uint64()}
	if f == 128 {
		fp.Lo = rng.Uint64()
	}
	return fp
}

func TestPermuteInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range [][3]int{{64, 3, 6}, {64, 3, 4}, {64, 1, 7}, {128, 3, 6}, {128, 5, 9}, {64, 0, 3}} {
		h, err := NewHamming(c[0], c[1], c[2])
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			a, b := randFP(rng, h.F), randFP(rng, h.F)
			for ti := range h.Tables {
				pa, pb := h.Permute(ti, a), h.Permute(ti, b)
				if h.Unpermute(ti, pa) != a {
					t.Fatalf("%v table %d: Unpermute(Permute(x)) != x", c, ti)
				}
				if simhash.Distance(pa, pb) != simhash.Distance(a, b) {
					t.Fatalf("%v table %d: permuting changed a distance", c, ti)
				}
				if h.F == 64 {
					if h.Permute64(ti, a.Hi) != pa.Hi || pa.Lo != 0 || h.Unpermute64(ti, pa.Hi) != a.Hi {
						t.Fatalf("%v table %d: 64-bit permutation differs", c, ti)
					}
				}
				// The key is the chosen blocks, in order.
				key := h.Key(ti, a)
				pos := 0
				for _, blk := range h.Tables[ti].Order[:h.Blocks-h.K] {
					w := h.Widths[blk]
					got := shr(shl(key, pos), 128-w)
					want := shr(shl(a, h.Starts[blk]), 128-w)
					if got != want {
						t.Fatalf("%v table %d: key block %d wrong", c, ti, blk)
					}
					pos += w
				}
				if rest := shl(key, pos); rest != (simhash.Fingerprint{}) {
					t.Fatalf("%v table %d: key has bits beyond its %d", c, ti, pos)
				}
			}
		}
	}
}

// checkPair checks that a and b (within k bits) share a key in some table
// and that exactly that first table says IsFirst.
func checkPair(t *testing.T, h *Hamming, a, b simhash.Fingerprint) {
	t.Helper()
	first := -1
	for ti := range h.Tables {
		if h.IsFirst(ti, a, b) {
			if first >= 0 {
				t.Fatalf("tables %d and %d both first for %v %v", first, ti, a, b)
			}
			first = ti
			if h.Key(ti, a) != h.Key(ti, b) {
				t.Fatalf("first table %d does not key %v and %v alike", ti, a, b)
			}
		} else if first < 0 && h.Key(ti, a) == h.Key(ti, b) {
			t.Fatalf("table %d keys %v and %v alike before their first table", ti, a, b)
		}
	}
	if first < 0 {
		t.Fatalf("no table keys %v and %v (distance %d) alike", a, b, simhash.Distance(a, b))
	}
	if h.FirstTable(a, b) != first {
		t.Fatalf("FirstTable %d, IsFirst %d", h.FirstTable(a, b), first)
	}
	if h.F == 64 {
		if !h.IsFirst64(first, a.Hi, b.Hi) {
			t.Fatalf("IsFirst64 disagrees")
		}
		for ti := range h.Tables {
			if h.IsFirstPermuted64(ti, h.Permute64(ti, a.Hi), h.Permute64(ti, b.Hi)) != (ti == first) {
				t.Fatalf("IsFirstPermuted64 disagrees in table %d (first %d)", ti, first)
			}
		}
	}
}

// flips calls fn with every set of at most k bit positions below f.
func flips(f, k int, fn func(pos []int)) {
	pos := make([]int, 0, k)
	var rec func(from int)
	rec = func(from int) {
		fn(pos)
		if len(pos) == k {
			return
		}
		for p := from; p < f; p++ {
			pos = append(pos, p)
			rec(p + 1)
			pos = pos[:len(pos)-1]
		}
	}
	rec(0)
}

func flip(x simhash.Fingerprint, pos []int) simhash.Fingerprint {
	for _, p := range pos {
		if p < 64 {
			x.Hi ^= 1 << (63 - p)
		} else {
			x.Lo ^= 1 << (127 - p)
		}
	}
	return x
}

// TestEveryPairFound flips every set of at most k bits of a few base
// fingerprints (all flips inside one block, spread over blocks, on block
// edges) and checks that every such pair shares a key in its first table.
func TestEveryPairFound(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	cases := [][3]int{{64, 3, 6}, {64, 3, 4}, {64, 2, 5}, {64, 1, 2}, {64, 0, 1}, {128, 2, 3}, {128, 2, 6}}
	if testing.Short() {
		cases = cases[:3]
	}
	for _, c := range cases {
		h, err := NewHamming(c[0], c[1], c[2])
		if err != nil {
			t.Fatal(err)
		}
		bases := []simhash.Fingerprint{{}, {Hi: ^uint64(0), Lo: ^uint64(0)}, randFP(rng, h.F)}
		if h.F == 64 {
			bases[1].Lo = 0
		}
		for _, a := range bases {
			n := 0
			flips(h.F, h.K, func(pos []int) {
				checkPair(t, h, a, flip(a, pos))
				n++
			})
			if n < 1 {
				t.Fatal("no flips")
			}
		}
	}
}

// TestBeyondK checks what the filter downstream relies on: pairs beyond k
// bits have no first table when they agree on too few blocks.
func TestBeyondK(t *testing.T) {
	h, _ := NewHamming(64, 3, 6)
	// Differ in one bit of each of four blocks: no table keys them alike.
	a := simhash.Fingerprint{}
	b := flip(a, []int{0, 11, 22, 33})
	for ti := range h.Tables {
		if h.Key(ti, a) == h.Key(ti, b) {
			t.Errorf("table %d keys a pair differing in 4 blocks alike", ti)
		}
	}
	if h.FirstTable(a, b) != -1 {
		t.Errorf("FirstTable of a pair differing in 4 blocks: %d", h.FirstTable(a, b))
	}
	// Differ in 5 bits of one block: they share keys, the distance is
	// what tells them apart.
	c := flip(a, []int{0, 1, 2, 3, 4})
	if h.FirstTable(a, c) < 0 {
		t.Error("a pair differing in one block has no first table")
	}
}

func BenchmarkPermute64(b *testing.B) {
	h, _ := NewHamming(64, 3, 6)
	x := uint64(0x0123456789abcdef)
	var s uint64
	for b.Loop() {
		for t := range h.Tables {
			s += h.Permute64(t, x)
		}
	}
	_ = s
}

func BenchmarkIsFirst64(b *testing.B) {
	h, _ := NewHamming(64, 3, 6)
	x, y := uint64(0x0123456789abcdef), uint64(0x0123456789abcdee)
	n := 0
	for b.Loop() {
		if h.IsFirst64(0, x, y) {
			n++
		}
	}
	_ = n
}
