package index

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// nearAll returns every implementation of near this CPU runs, by name.
func nearAll() map[string]func([]uint64, uint64, int) int {
	fs := map[string]func([]uint64, uint64, int) int{"go": nearGo, "near": near}
	addNear(fs)
	return fs
}

// TestNear checks each implementation against a scan, with values within k
// bits at every place (and none), for every length up to 40.
func TestNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for name, f := range nearAll() {
		for n := range 41 {
			for _, k := range []int{0, 1, 3, 7} {
				for at := -1; at < n; at++ {
					p := rng.Uint64()
					vals := make([]uint64, n)
					for i := range vals {
						vals[i] = rng.Uint64() // 32 bits away, give or take
					}
					want := n
					if at >= 0 {
						// One value within k bits, another just beyond
						// before it.
						vals[at] = flipBits(p, rng.Perm(64)[:rng.IntN(k+1)]...)
						if at > 0 {
							vals[at-1] = flipBits(p, rng.Perm(64)[:k+1]...)
						}
						want = at
					}
					for i, v := range vals[:want] {
						if bits.OnesCount64(v^p) <= k {
							want = i
							break
						}
					}
					if got := f(vals, p, k); got != want {
						t.Fatalf("%s: n=%d k=%d: %d, want %d", name, n, k, got, want)
					}
				}
			}
		}
	}
}

// TestNearAny checks each implementation of nearAny against nearAnyGo
// with Go's near, with a value within k bits for some query or none.
func TestNearAny(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	fs := map[string]func([]uint64, []uint64, int) (int, int){"near": nearAny}
	addNearAny(fs)
	for name, f := range fs {
		for n := range 20 {
			for m := range 5 {
				for try := range 20 {
					vals := make([]uint64, n)
					for i := range vals {
						vals[i] = rng.Uint64()
					}
					ps := make([]uint64, m)
					for i := range ps {
						ps[i] = rng.Uint64()
					}
					k := try % 5
					if n > 0 && m > 0 && try%4 != 0 {
						i, j := rng.IntN(m), rng.IntN(n)
						vals[j] = flipBits(ps[i], rng.Perm(64)[:rng.IntN(k+1)]...)
					}
					wi, wj := len(ps), 0
				scan:
					for i, p := range ps {
						for j, v := range vals {
							if bits.OnesCount64(v^p) <= k {
								wi, wj = i, j
								break scan
							}
						}
					}
					if gi, gj := f(vals, ps, k); gi != wi || gj != wj {
						t.Fatalf("%s: n=%d m=%d k=%d: (%d, %d), want (%d, %d)", name, n, m, k, gi, gj, wi, wj)
					}
				}
			}
		}
	}
}

func BenchmarkNear(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]uint64, 64)
	for i := range vals {
		vals[i] = rng.Uint64()
	}
	p := rng.Uint64()
	for name, f := range nearAll() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(8 * int64(len(vals)))
			for b.Loop() {
				if f(vals, p, 3) != len(vals) {
					b.Fatal("a value within 3 bits")
				}
			}
		})
	}
}
