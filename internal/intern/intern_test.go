package intern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tab := New()
	want := map[string]uint32{}
	var order []string
	for range 50000 {
		id := fmt.Sprintf("id%d", rng.IntN(30000))
		if rng.IntN(100) == 0 {
			id = "" // the empty id is an id too
		}
		n, added := tab.Add([]byte(id))
		old, seen := want[id]
		if added == seen {
			t.Fatalf("Add(%q): added = %v, seen before = %v", id, added, seen)
		}
		if !seen {
			want[id] = n
			order = append(order, id)
			if int(n) != len(order)-1 {
				t.Fatalf("Add(%q) = %d, want the next number %d", id, n, len(order)-1)
			}
		} else if n != old {
			t.Fatalf("Add(%q) = %d, want %d", id, n, old)
		}
	}
	if tab.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", tab.Len(), len(want))
	}
	for i, id := range order {
		if got := string(tab.ID(uint32(i))); got != id {
			t.Fatalf("ID(%d) = %q, want %q", i, got, id)
		}
		if n, ok := tab.Lookup([]byte(id)); !ok || n != uint32(i) {
			t.Fatalf("Lookup(%q) = %d, %v", id, n, ok)
		}
	}
	if _, ok := tab.Lookup([]byte("absent")); ok {
		t.Fatal("Lookup found an id never added")
	}
}

func BenchmarkAdd(b *testing.B) {
	ids := make([][]byte, 1<<20)
	for i := range ids {
		ids[i] = fmt.Appendf(nil, "document/%08d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		tab := New()
		for _, id := range ids {
			tab.Add(id)
		}
	}
	b.ReportMetric(float64(len(ids))*float64(b.N)/b.Elapsed().Seconds(), "ids/s")
}
