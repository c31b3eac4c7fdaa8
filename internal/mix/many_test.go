package mix

import (
	"math/rand/v2"
	"testing"
)

// refWindow is Window's definition, one window at a time.
func refWindow(units []uint64, k int, base, add, key uint64) []uint64 {
	var out []uint64
	for i := 0; i+k <= len(units); i++ {
		var p uint64
		for _, u := range units[i : i+k] {
			p = p*base + u
		}
		out = append(out, Murmur((p+add)^key))
	}
	return out
}

// Both loops, the vector one where the CPU has it (forced off in turn),
// give the definition's values at every length around the vectors' 16,
// also in place.
func TestMurmurXor(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, mode := range vectorModes(t) {
		vector := mode()
		for n := range 70 {
			src := make([]uint64, n)
			for i := range src {
				src[i] = r.Uint64()
			}
			key := r.Uint64()
			dst := make([]uint64, n)
			MurmurXor(dst, src, key)
			for i, x := range src {
				if want := Murmur(x ^ key); dst[i] != want {
					t.Fatalf("vector %v, n %d: dst[%d] = %x, want %x", vector, n, i, dst[i], want)
				}
			}
			MurmurXor(src, src, key)
			for i := range src {
				if src[i] != dst[i] {
					t.Fatalf("vector %v, n %d, in place: [%d] = %x, want %x", vector, n, i, src[i], dst[i])
				}
			}
		}
	}
}

func TestWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, mode := range vectorModes(t) {
		vector := mode()
		for _, k := range []int{1, 2, 5, 9, 16, MaxWindow, MaxWindow + 1, 40} {
			for n := range 80 {
				units := make([]uint64, n)
				for i := range units {
					units[i] = r.Uint64()
				}
				base, add, key := r.Uint64(), r.Uint64(), r.Uint64()
				want := refWindow(units, k, base, add, key)
				got := make([]uint64, len(want)+1)
				got[len(want)] = 7 // past the windows: left alone
				Window(got, units, k, base, add, key)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("vector %v, k %d, n %d: window %d = %x, want %x", vector, k, n, i, got[i], want[i])
					}
				}
				if got[len(want)] != 7 {
					t.Fatalf("vector %v, k %d, n %d: wrote past the last window", vector, k, n)
				}
			}
		}
	}
}

var benchOut = make([]uint64, 3000)

func BenchmarkMurmurXor(b *testing.B) {
	src := make([]uint64, 3000)
	for i := range src {
		src[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for _, mode := range vectorModes(b) {
		b.Run(map[bool]string{true: "vector", false: "go"}[mode()], func(b *testing.B) {
			for b.Loop() {
				MurmurXor(benchOut, src, 77)
			}
		})
	}
}

func BenchmarkWindow(b *testing.B) {
	units := make([]uint64, 3004)
	for i := range units {
		units[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	for _, mode := range vectorModes(b) {
		b.Run(map[bool]string{true: "vector", false: "go"}[mode()], func(b *testing.B) {
			for b.Loop() {
				Window(benchOut, units, 5, 0x9e3779b97f4a7c15, 9, 77)
			}
		})
	}
}
