package store

import (
	"fmt"
	"slices"
	"testing"
)

func TestStoreBlocks(t *testing.T) {
	s := New()
	want := map[string][]uint64{}
	// Documents of many sizes, one larger than a block, so that values
	// span several blocks.
	for i, n := range []int{0, 1, 5, BlockValues - 3, 7, BlockValues + 10, 2, 0, 100} {
		vals := make([]uint64, n)
		for j := range vals {
			vals[j] = uint64(i)<<40 | uint64(j)
		}
		id := fmt.Sprintf("d%d", i)
		if !s.Add([]byte(id), uint64(n+1), vals) {
			t.Fatalf("%s refused", id)
		}
		want[id] = vals
	}
	if s.Add([]byte("d3"), 1, nil) {
		t.Error("a repeated id was stored")
	}
	if s.Len() != len(want) {
		t.Fatalf("Len %d, want %d", s.Len(), len(want))
	}
	for id, vals := range want {
		i, ok := s.Lookup([]byte(id))
		if !ok || s.ID(i) != id {
			t.Fatalf("Lookup(%s) = %d, %v", id, i, ok)
		}
		if got := s.Values(i); !slices.Equal(got, vals) || cap(got) != len(got) {
			t.Errorf("%s: %d values (cap %d), want %d", id, len(got), cap(got), len(vals))
		}
		if s.Size(i) != uint64(len(vals)+1) {
			t.Errorf("%s: size %d", id, s.Size(i))
		}
	}
	if _, ok := s.Lookup([]byte("nope")); ok {
		t.Error("an unknown id was found")
	}
}
