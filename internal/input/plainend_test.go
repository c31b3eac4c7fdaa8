package input

import (
	"math/rand/v2"
	"testing"
)

// TestPlainEnd compares plainEnd with a byte-by-byte scan on random bytes
// that hold each byte that ends a run, and its neighbours, at every offset
// of an eight-byte word.
func TestPlainEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	picks := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a'}
	for range 100000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
			if rng.IntN(6) == 0 {
				b[i] = picks[rng.IntN(len(picks))]
			}
		}
		start := 0
		if len(b) > 0 {
			start = rng.IntN(len(b) + 1)
		}
		want := start
		for want < len(b) && b[want] != '"' && b[want] != '\\' && b[want] >= 0x20 {
			want++
		}
		if got := plainEnd(b, start); got != want {
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", b, start, got, want)
		}
	}
}
