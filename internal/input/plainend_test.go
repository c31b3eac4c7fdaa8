package input

import (
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// TestPlainEnd compares plainEnd with a byte-by-byte scan on random bytes
// that hold each byte that ends a run, and its neighbours, at every offset
// of an eight-byte word and of a 32-byte block, with AVX2 and without.
func TestPlainEnd(t *testing.T) {
	testutil.Vector(t, &hasAVX2, func(t *testing.T) {
		testPlainEnd(t, 40, 6)
		testPlainEnd(t, 200, 60)
	})
}

// testPlainEnd tries bytes up to size long, one in every of them a pick.
func testPlainEnd(t *testing.T, size, every int) {
	rng := rand.New(rand.NewPCG(3, 3))
	picks := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a'}
	for range 100000 {
		b := make([]byte, rng.IntN(size))
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
			if rng.IntN(every) == 0 {
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
			t.Fatalf("AVX2 %v: plainEnd(%q, %d) = %d, want %d", hasAVX2, b, start, got, want)
		}
		// The vector loop stops at the byte itself, or at the end of
		// its blocks.
		if rest := len(b) - start; hasAVX2 && rest >= 32 {
			if got, want := plainRun(b[start:]), min(want-start, rest&^31); got != want {
				t.Fatalf("plainRun(%q) = %d, want %d", b[start:], got, want)
			}
		}
	}
}
