package minhash

import (
	"math/rand/v2"
	"testing"
)

// countModes returns, for each table OPH.countSum can use here, a function
// that sets it up and names it: the buckets of AVX-512 (where the CPU has
// it), then linear probing. The CPU's own comes back at the end of the
// test.
func countModes(t *testing.T) []func() string {
	has := hasAVX512
	t.Cleanup(func() { hasAVX512 = has })
	modes := []func() string{func() string { hasAVX512 = false; return "probing" }}
	if has {
		modes = append([]func() string{func() string { hasAVX512 = true; return "buckets" }}, modes...)
	}
	return modes
}

// TestBucketTableOnce: a value met again is found, not written to a slot
// of its own as well, so the table holds each distinct value once.
func TestBucketTableOnce(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512")
	}
	r := rand.New(rand.NewPCG(5, 6))
	distinct := make([]uint64, 500)
	for i := range distinct {
		distinct[i] = r.Uint64() | 1
	}
	var hs []uint64
	for range 4 {
		hs = append(hs, distinct...)
	}
	var o OPH
	tab, _ := o.bucketTable(len(hs))
	bins := make([]uint64, 128)
	if n := tab.add(hs, bins, make([]bool, len(bins))); n != len(hs) {
		t.Fatalf("binned %d of %d", n, len(hs))
	}
	full := 0
	for _, v := range tab.slots {
		if v != 0 {
			full++
		}
	}
	var sum uint64
	for _, v := range distinct {
		sum += v
	}
	if n, s := tab.tally(); full != len(distinct) || n != uint64(len(distinct)) || s != sum {
		t.Errorf("%d slots full, %d counted, sum %x, for %d distinct values of sum %x", full, n, s, len(distinct), sum)
	}
}
