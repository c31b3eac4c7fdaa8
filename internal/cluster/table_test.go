package cluster

import (
	"math/rand/v2"
	"testing"
)

// TestKeyTableDelete sets and deletes keys at random, many of them in one
// run of occupied slots, and compares the table with a map.
func TestKeyTableDelete(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tab := newKeyTable()
	want := map[uint64]uint32{}
	for i := range 200000 {
		// Few distinct keys, some of them colliding at home.
		k := uint64(rng.IntN(3000))
		if rng.IntN(4) == 0 {
			k <<= 40
		}
		if rng.IntN(2) == 0 {
			tab.set(k, uint32(i+1))
			want[k] = uint32(i + 1)
		} else {
			tab.del(k)
			delete(want, k)
		}
	}
	if tab.n != len(want) {
		t.Fatalf("%d keys counted, %d held", tab.n, len(want))
	}
	for k := range uint64(3000) {
		for _, key := range []uint64{k, k << 40} {
			if got := tab.get(key); got != want[key] {
				t.Fatalf("key %x: %d, want %d", key, got, want[key])
			}
		}
	}
}
