package input

import (
	"math/rand/v2"
	"testing"
)

// TestPlainEnd compares plainEnd with a byte-by-byte scan on random bytes
// that hold each byte that ends a run, and its neighbours, at every offset
// of an eight-byte word and of a 32-byte block.
func TestPlainEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	picks := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a'}
	for n := range 200000 {
		// Short strings with many ends, and long ones with few, which
		// the vector scan takes 32 bytes at a time.
		size, every := 40, 6
		if n%2 == 1 {
			size, every = 200, 90
		}
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
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", b, start, got, want)
		}
	}
}

// BenchmarkPlainEnd scans a string of 2,000 plain bytes, a crawl page's
// text without escapes: 7.2 GB/s with AVX2 against 3.6 eight bytes at a
// time (AMD EPYC).
func BenchmarkPlainEnd(b *testing.B) {
	s := make([]byte, 2048)
	for i := range s {
		s[i] = 'a' + byte(i%26)
	}
	s[2000] = '"'
	b.SetBytes(2000)
	for b.Loop() {
		if plainEnd(s, 0) != 2000 {
			b.Fatal("plainEnd missed the quote")
		}
	}
}
