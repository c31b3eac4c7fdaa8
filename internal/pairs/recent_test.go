package pairs

import (
	"testing"

	"github.com/neardup/neardup/internal/bbit"
)

// TestRecentReplay: a pair tried again is counted as its judging counted
// it, for each thing the judge can say, and set aside when it was.
func TestRecentReplay(t *testing.T) {
	start := bbit.Counts{Pairs: 10, BySize: 3, BySignature: 2, Unsigned: 1}
	for _, c := range []struct {
		judged bbit.Counts
		far    bool
	}{
		{bbit.Counts{Pairs: 11, BySize: 3, BySignature: 2, Unsigned: 1}, false},
		{bbit.Counts{Pairs: 11, BySize: 3, BySignature: 2, Unsigned: 2}, false},
		{bbit.Counts{Pairs: 11, BySize: 4, BySignature: 2, Unsigned: 1}, true},
		{bbit.Counts{Pairs: 11, BySize: 3, BySignature: 3, Unsigned: 1}, true},
	} {
		v := judged(&start, &c.judged)
		again := c.judged
		far := replay(&again, v)
		want := c.judged
		want.Add(bbit.Counts{Pairs: 1, BySize: c.judged.BySize - start.BySize,
			BySignature: c.judged.BySignature - start.BySignature, Unsigned: c.judged.Unsigned - start.Unsigned})
		if again != want || far != c.far {
			t.Errorf("judged %+v from %+v: replayed to %+v (far %v), want %+v (far %v)", c.judged, start, again, far, want, c.far)
		}
	}
	// Pairs that share a slot are told apart: one forgotten is tried again.
	r := newRecentPairs(0)
	i, seen := r.slot(1<<32 | 2)
	r.pairs[i] = 1<<32 | 2
	if _, seen = r.slot(1<<32 | 2); !seen {
		t.Error("a pair held is not found")
	}
	for p := uint64(1<<32 | 3); p < 1<<32|100000; p++ {
		if j, seen := r.slot(p); seen || (j == i && r.pairs[j] == p) {
			t.Fatalf("pair %x taken for the pair held", p)
		}
	}
}
