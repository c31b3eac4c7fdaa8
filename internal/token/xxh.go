package token

import (
	"encoding/binary"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// XXH64's primes.
const (
	prime1 uint64 = 0x9e3779b185ebca87
	prime2 uint64 = 0xc2b2ae3d27d4eb4f
	prime3 uint64 = 0x165667b19e3779f9
	prime4 uint64 = 0x85ebca77c2b2ae63
	prime5 uint64 = 0x27d4eb2f165667c5
)

// Hash is XXH64 with seed 0 of a token (the token hash of word shingles), the same value as
// xxhash.Sum64. Most tokens are shorter than 32 bytes, where XXH64 is a few
// steps that Go compiles as well as the assembly does, without the call.
func Hash(b []byte) uint64 {
	n := len(b)
	if n >= 32 {
		return xxhash.Sum64(b)
	}
	h := prime5 + uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		k := binary.LittleEndian.Uint64(b)
		k = bits.RotateLeft64(k*prime2, 31) * prime1
		h = bits.RotateLeft64(h^k, 27)*prime1 + prime4
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * prime1
		h = bits.RotateLeft64(h, 23)*prime2 + prime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * prime5
		h = bits.RotateLeft64(h, 11) * prime1
	}
	return avalanche(h)
}

// avalanche is XXH64's last step.
func avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	return h ^ h>>32
}

// shortTokenHash is Hash of n < 16 ASCII letters and digits
// lower-cased, the first n of the 16 bytes w0 and w1 (little endian; the
// caller loads them, with one bounds check). Setting bit 5 (0x20) of each
// byte lower-cases it, so the words are lower-cased as they are loaded; and
// every step of XXH64 for short input is computed and kept or not by a
// conditional move, so that the token's length costs no mispredicted
// branch (tokens of source code and prose vary in length at random).
func shortTokenHash(w0, w1 uint64, n int) uint64 {
	const lower = 0x2020202020202020
	w0 |= lower
	w1 |= lower
	h := prime5 + uint64(n)
	// Eight bytes, if there are.
	k := bits.RotateLeft64(w0*prime2, 31) * prime1
	h8 := bits.RotateLeft64(h^k, 27)*prime1 + prime4
	w := w0
	if n >= 8 {
		h, w = h8, w1
	}
	// Four, if there are.
	h4 := bits.RotateLeft64(h^(w&0xffffffff)*prime1, 23)*prime2 + prime3
	if n&4 != 0 {
		h, w = h4, w>>32
	}
	// Up to three more, one at a time.
	r := n & 3
	hb := bits.RotateLeft64(h^(w&0xff)*prime5, 11) * prime1
	if r >= 1 {
		h = hb
	}
	hb = bits.RotateLeft64(h^(w>>8&0xff)*prime5, 11) * prime1
	if r >= 2 {
		h = hb
	}
	hb = bits.RotateLeft64(h^(w>>16&0xff)*prime5, 11) * prime1
	if r >= 3 {
		h = hb
	}
	return avalanche(h)
}
