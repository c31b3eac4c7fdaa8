package spans

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/neardup/neardup/internal/token"
)

// TestKeysRoll checks the rolled keys against each window's polynomial
// computed anew with big integers.
func TestKeysRoll(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := new(big.Int).SetUint64(modulus)
	for _, n := range []int{1, 2, 3, 7, 50} {
		toks := make([]token.TokenHash, 200)
		for i := range toks {
			toks[i].H1, toks[i].H2 = rng.Uint64(), rng.Uint64()
			if i%5 == 0 {
				toks[i].H1 = ^uint64(0) - uint64(i) // near 2^64: reduced mod p
			}
		}
		k := newKeyer(n)
		keys := k.appendKeys(nil, toks)
		if len(keys) != len(toks)-n+1 {
			t.Fatalf("n=%d: %d keys for %d tokens", n, len(keys), len(toks))
		}
		for i, got := range keys {
			var want [2]uint64
			for half, b := range []uint64{base1, base2} {
				h := new(big.Int)
				for _, tk := range toks[i : i+n] {
					v := tk.H1
					if half == 1 {
						v = tk.H2
					}
					h.Mul(h, new(big.Int).SetUint64(b))
					h.Add(h, new(big.Int).SetUint64(v))
					h.Mod(h, p)
				}
				want[half] = h.Uint64()
			}
			if got.k0 != want[0] || got.k1 != want[1] {
				t.Fatalf("n=%d window %d: key %x %x, want %x %x", n, i, got.k0, got.k1, want[0], want[1])
			}
		}
	}
	if k := newKeyer(3); len(k.appendKeys(nil, make([]token.TokenHash, 2))) != 0 {
		t.Fatal("2 tokens have a window of 3")
	}
}
