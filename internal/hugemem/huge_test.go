package hugemem

import "testing"

// The memory is zeroed, writable to its end, and given back; small and
// large (mapped) sizes, and a struct.
func TestSlice(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 1 << 20} {
		a, free := Slice[uint64](n)
		if len(a) != n {
			t.Fatalf("%d: got %d", n, len(a))
		}
		for i := range a {
			if a[i] != 0 {
				t.Fatalf("%d: a[%d] = %d", n, i, a[i])
			}
			a[i] = uint64(i)
		}
		for i := range a {
			if a[i] != uint64(i) {
				t.Fatalf("%d: a[%d] = %d", n, i, a[i])
			}
		}
		free()
	}
	type pair struct {
		a    uint64
		b, c uint32
	}
	p, free := Slice[pair](1 << 18)
	p[len(p)-1] = pair{1, 2, 3}
	if p[len(p)-1] != (pair{1, 2, 3}) || p[0] != (pair{}) {
		t.Fatal("struct elements")
	}
	free()
}
