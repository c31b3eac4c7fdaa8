package token

import (
	"bytes"
	"encoding/binary"
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
			if got, want := Hash(buf[:n]), xxhash.Sum64(buf[:n]); got != want {
				t.Fatalf("Hash(%x) = %x, xxhash.Sum64 %x", buf[:n], got, want)
			}
		}
	}
}

func TestShortTokenHash(t *testing.T) {
	const alnum = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	r := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, 16)
	for n := 0; n < 16; n++ {
		for trial := 0; trial < 200; trial++ {
			for i := range b {
				b[i] = alnum[r.IntN(len(alnum))]
				if i >= n {
					b[i] = byte(r.Uint32()) // whatever follows the token
				}
			}
			if got, want := shortTokenHash(binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), n), xxhash.Sum64(bytes.ToLower(b[:n])); got != want {
				t.Fatalf("shortTokenHash(%q, %d) = %x, XXH64 of the token lower-cased %x", b, n, got, want)
			}
		}
	}
}
