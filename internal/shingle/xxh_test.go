package shingle

import (
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestTokenHashIsXXH64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 80)
	for n := 0; n <= len(buf); n++ {
		for trial := 0; trial < 200; trial++ {
			for i := range buf[:n] {
				buf[i] = byte(r.Uint32())
			}
			if got, want := tokenHash(buf[:n]), xxhash.Sum64(buf[:n]); got != want {
				t.Fatalf("tokenHash(%x) = %x, xxhash.Sum64 %x", buf[:n], got, want)
			}
		}
	}
}
