package unionfind

import "testing"

func TestForest(t *testing.T) {
	u := New(6)
	u.Union(0, 1)
	u.Union(2, 3)
	u.Union(3, 1)
	u.Grow(8)
	u.Union(7, 5)
	for _, c := range []struct {
		a, b uint32
		same bool
	}{{0, 2, true}, {1, 3, true}, {0, 4, false}, {5, 7, true}, {6, 5, false}} {
		if got := u.Find(c.a) == u.Find(c.b); got != c.same {
			t.Errorf("%d and %d together: %v, want %v", c.a, c.b, got, c.same)
		}
	}
	if n := u.Size[u.Find(0)]; n != 4 {
		t.Errorf("0's tree has %d, want 4", n)
	}
}
