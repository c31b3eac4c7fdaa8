package lsh

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/simhash"
)

// Known-answer vectors for the keys band writes and bandindex and --state
// files keep, which must compare with keys made years later: these values
// never change, and a change to a value is a new scheme with a new name in
// the band header (scheme=, key=), never a silent one.

// TestKnownBandKeys pins the band hashes of scheme=minhash key=xxh64.
func TestKnownBandKeys(t *testing.T) {
	const want = "cc8de5acbc49385e f8587f9b958be363 789d44d1931f925f"
	sig := make([]uint64, 12)
	for i := range sig {
		sig[i] = uint64(i+1) * 0x9e3779b97f4a7c15
	}
	banding := Banding{B: 3, R: 4}
	hashes := make([]uint64, banding.B)
	for i := range hashes {
		hashes[i], _ = banding.BandHash(nil, sig, i)
	}
	if got := strings.Trim(fmt.Sprintf("%016x", hashes), "[]"); got != want {
		t.Errorf("scheme=minhash key=xxh64, 3 bands of 4 rows:\n got %s\nwant %s\na changed value needs a new scheme name", got, want)
	}
}

// knownHammingKeys are the keys of scheme=hamming of one fingerprint in
// every table, f bits (a 128-bit key is its two halves), k, blocks.
var knownHammingKeys = []struct {
	f, k, blocks int
	want         string
}{
	{64, 3, 6, "0123456780000000 0123444d00000000 012346f300000000 012345ef00000000 012b3c4d00000000 012b3ef300000000 012b3def00000000 01226af300000000 012269ef00000000 01379bde00000000 1a2b3c4d00000000 1a2b3ef300000000 1a2b3def00000000 1a226af300000000 1a2269ef00000000 1a379bde00000000 59e26af300000000 59e269ef00000000 59f79bde00000000 13579bde00000000"},
	{64, 3, 4, "0123000000000000 4567000000000000 89ab000000000000 cdef000000000000"},
	{128, 3, 6, "0123456789abcdef8000000000000000 0123456789afdb970000000000000000 0123456789aa61d90000000000000000 0123456789aa19080000000000000000 012346f37bffb72e0000000000000000 012346f37bf4c3b20000000000000000 012346f37bf432100000000000000000 012347f6e5d4c3b20000000000000000 012347f6e5d432100000000000000000 01234698765432100000000000000000 59e26af37bffb72e0000000000000000 59e26af37bf4c3b20000000000000000 59e26af37bf432100000000000000000 59e26bf6e5d4c3b20000000000000000 59e26bf6e5d432100000000000000000 59e26a98765432100000000000000000 bcdeffedcba987640000000000000000 bcdeffedcba864200000000000000000 bcdefd30eca864200000000000000000 fdb97530eca864200000000000000000"},
}

func TestKnownHammingKeys(t *testing.T) {
	for _, v := range knownHammingKeys {
		h, err := NewHamming(v.f, v.k, v.blocks)
		if err != nil {
			t.Fatal(err)
		}
		fp := simhash.Fingerprint{Hi: 0x0123456789abcdef}
		if v.f == 128 {
			fp.Lo = 0xfedcba9876543210
		}
		keys := make([]string, len(h.Tables))
		for i := range h.Tables {
			key := h.Key(i, fp)
			keys[i] = fmt.Sprintf("%016x", key.Hi)
			if v.f == 128 {
				keys[i] += fmt.Sprintf("%016x", key.Lo)
			}
		}
		if got := strings.Join(keys, " "); got != v.want {
			t.Errorf("scheme=hamming f=%d k=%d blocks=%d:\n got %s\nwant %s\na changed value needs a new scheme name", v.f, v.k, v.blocks, got, v.want)
		}
	}
}
