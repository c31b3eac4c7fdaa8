package band

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/docfreq"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// TestSelectKth checks the selection against sorting, on values with many
// repeats (ranks) and distinct ones (hashes).
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 200; n++ {
		for _, vals := range []uint64{3, 1 << 62} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = rng.Uint64N(vals)
			}
			sorted := slices.Sorted(slices.Values(a))
			for _, k := range []int{0, n / 2, n - 1, rng.IntN(n)} {
				if got := selectKth(slices.Clone(a), k); got != sorted[k] {
					t.Fatalf("n=%d: element %d is %d, want %d", n, k, got, sorted[k])
				}
			}
		}
	}
}

// TestRankDoc checks the last shingle of a document's prefix against
// sorting its shingles by (df, hash), with many ties of df, and dfs below
// and past the ranks rankDoc counts.
func TestRankDoc(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	want := map[uint64]uint32{}
	var b strings.Builder
	fmt.Fprintf(&b, "#neardup stage=docfreq docs=100\n")
	pool := make([]uint64, 3000)
	for i := range pool {
		pool[i] = rng.Uint64()
	}
	for _, h := range slices.Sorted(slices.Values(pool)) {
		c := uint32(rng.IntN(6))
		if rng.IntN(4) != 0 {
			c = rankHist - 2 + uint32(rng.IntN(5)) // about and past the ranks counted
		}
		if c >= 2 { // df 0 or 1: not held
			want[h] = c
			fmt.Fprintf(&b, "%016x\t%d\n", h, c)
		}
	}
	table, err := docfreq.LoadAtLeast(context.Background(), testutil.WriteFile(t, "df.tsv", b.String()), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	m := tableDFMap(table)
	for _, threshold := range []float64{0.5, 0.9, 1} {
		w := newContainWorker(ContainmentOptions{Threshold: threshold, Mode: record.ContainCorpus}, m, false, nil)
		for range 300 {
			set := map[uint64]bool{}
			for range 1 + rng.IntN(100) {
				set[pool[rng.IntN(len(pool))]] = true
			}
			hashes := slices.Sorted(maps.Keys(set))
			order := make([]ranked, len(hashes))
			for i, h := range hashes {
				order[i] = ranked{uint64(want[h]), h}
			}
			slices.SortFunc(order, compareRanked)
			n := uint64(len(hashes))
			wantLast := order[n-record.ContainNeed(threshold, n)]
			if got := w.rankDoc(hashes); got != wantLast {
				t.Fatalf("T=%g, %d shingles: last of the prefix %v, want %v", threshold, n, got, wantLast)
			}
			for i, h := range hashes {
				if w.dfs[i] != uint64(want[h]) {
					t.Fatalf("df of %x: %d, want %d", h, w.dfs[i], want[h])
				}
			}
		}
	}
}

// TestDFMap checks the df hash table against a map, with uniform hashes
// (each bucket its hashes' top bits), with hashes that fill some buckets
// (the rest in the overflow map), with counts too large for a slot's
// count field, and with hashes that crowd a few buckets (then scrambled).
func TestDFMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name     string
		hash     func(i int) uint64
		count    func(i int) uint32
		mul      uint64
		overflow bool // some hashes must be in the overflow map
	}{
		{"uniform", func(int) uint64 { return rng.Uint64() }, func(int) uint32 { return uint32(1 + rng.IntN(100)) }, 1, false},
		{"full", func(i int) uint64 {
			if i < 50 {
				return ^uint64(0) - uint64(i) // 50 in the last bucket
			}
			return rng.Uint64()
		}, func(int) uint32 { return uint32(1 + rng.IntN(100)) }, 1, true},
		{"large counts", func(int) uint64 { return rng.Uint64() }, func(i int) uint32 {
			return []uint32{1, 254, 255, 256, 1<<32 - 1}[i%5]
		}, 1, true},
		{"crowded", func(i int) uint64 { return uint64(i) * 3 }, func(int) uint32 { return uint32(1 + rng.IntN(100)) }, 0x9e3779b97f4a7c15, false},
	} {
		want := map[uint64]uint32{}
		for i := range 5000 {
			want[tc.hash(i)] = tc.count(i)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "#neardup stage=docfreq docs=100\n")
		for _, k := range slices.Sorted(maps.Keys(want)) {
			fmt.Fprintf(&b, "%016x\t%d\n", k, want[k])
		}
		table, err := docfreq.Load(context.Background(), testutil.WriteFile(t, "df.tsv", b.String()), 1)
		if err != nil {
			t.Fatal(err)
		}
		m := tableDFMap(table)
		if m.mul != tc.mul {
			t.Errorf("%s: multiplier %#x, want %#x", tc.name, m.mul, tc.mul)
		}
		if tc.overflow && len(m.over) == 0 {
			t.Errorf("%s: no hash in the overflow map", tc.name)
		}
		for k, c := range want {
			if got := m.DF(k); got != uint64(c) {
				t.Fatalf("%s: DF(%x) = %d, want %d", tc.name, k, got, c)
			}
			// Neighbours, and hashes of the same bucket and slot bits
			// but another bucket, or the same bucket and other slot bits.
			for _, other := range []uint64{k ^ 1, k + 1, k - 1, k ^ 1<<63, k ^ 1<<(64-m.b), k ^ 1<<(63-m.b)} {
				if got := m.DF(other); got != uint64(want[other]) {
					t.Fatalf("%s: DF(%x) = %d, want %d", tc.name, other, got, want[other])
				}
			}
		}
		// appendDFs, with the vector code and without, gives DF of each.
		var probes []uint64
		for _, k := range slices.Sorted(maps.Keys(want)) {
			probes = append(probes, k, k^1, k^1<<63, k^1<<(64-m.b), k^1<<(63-m.b))
		}
		had := hasDFVector
		for _, vector := range []bool{false, true} {
			hasDFVector = vector && had
			got := m.appendDFs([]uint64{7}, probes)
			for i, h := range probes {
				if got[i+1] != uint64(want[h]) {
					hasDFVector = had
					t.Fatalf("%s, vector %v: appendDFs gave %x %d, want %d", tc.name, vector, h, got[i+1], want[h])
				}
			}
		}
		hasDFVector = had
	}
}

// TestProbeSet checks the probe set against a map: every shingle added is
// found with its df and the least need added for it, across the table's
// growth; no other is.
func TestProbeSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	want := map[uint64]probeSlot{}
	s := newProbeSet()
	for range 20000 {
		// Clustered values as well as scattered ones.
		h := rng.Uint64()
		if rng.IntN(2) == 0 {
			h = uint64(rng.IntN(3000)) << 40
		}
		df, need := uint32(2+h%7), uint32(1+rng.IntN(500))
		s.add(h, df, need)
		p, ok := want[h]
		if ok {
			need = min(need, p.need)
		}
		want[h] = probeSlot{h, df, need}
	}
	if s.n != len(want) {
		t.Fatalf("%d shingles held, want %d", s.n, len(want))
	}
	for h, p := range want {
		if got := s.filtered(nil, []uint64{h}); len(got) != 1 {
			t.Fatalf("%x: the filter leaves it out", h)
		}
		if got := s.get(h); got == nil || *got != p {
			t.Fatalf("%x: got %v, want %v", h, got, p)
		}
	}
	passed := 0
	for range 100000 {
		h := rng.Uint64()
		if _, ok := want[h]; ok {
			continue
		}
		if s.get(h) != nil {
			t.Fatalf("%x: found but never added", h)
		}
		passed += len(s.filtered(nil, []uint64{h}))
	}
	// At most a fifth of the filter's bits are set (two for each of at
	// most one shingle in 8 bits): at most 1 in 25 on average passes both
	// (a rate above 1 in 16 is a broken filter, or one bit a shingle).
	if passed > 100000/16 {
		t.Fatalf("the filter passed %d of 100000 shingles not held", passed)
	}
}

// tableDFMap makes the df map of a table, on 3 goroutines.
func tableDFMap(table *docfreq.Table) *dfMap {
	var hashes []uint64
	var counts []uint32
	table.Each(func(h uint64, c uint32) { hashes, counts = append(hashes, h), append(counts, c) })
	// Several runs, as a table's chunks give them.
	var runs [][]uint64
	var cs [][]uint32
	for i := 0; i < len(hashes); i += 777 {
		j := min(i+777, len(hashes))
		runs, cs = append(runs, hashes[i:j]), append(cs, counts[i:j])
	}
	return newDFMap(len(hashes), runs, cs, 3)
}
