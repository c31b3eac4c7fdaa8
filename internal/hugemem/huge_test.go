package hugemem

import "testing"

// The memory is zeroed, writable to its end, and given back.
func TestUint64s(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 1 << 20} {
		a, free := Uint64s(n)
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
}
