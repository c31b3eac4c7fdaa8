package token

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Units with the vector code (where the CPU has it) and without gives the
// units Next does, on texts of every class of ASCII rune (upper and lower
// case, digits, white space, punctuation) in runs of random length, now
// and then a rune that is not ASCII (a block the vector code leaves), in
// batches whose room ends in the middle of a block.
func TestUnitsVector(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", "q", "7", " ", "\t", "\n", "  ", ".", ",", "-", "_", "'", "(", "é", "中", "ｱ", "\x7f", "\x00"}
	for _, mode := range unitsModes(t) {
		vector := mode()
		for trial := range 400 {
			var text []byte
			for size := r.IntN(700); len(text) < size; {
				p := pieces[r.IntN(len(pieces))]
				if p[0] >= 0x80 && r.IntN(8) != 0 {
					continue // mostly ASCII: the vector code's blocks
				}
				for range 1 + r.IntN(6) {
					text = append(text, p...)
				}
			}
			for _, punct := range []bool{false, true} {
				want := nextUnits(text, punct)
				for _, max := range []int{3, 66, 67, 100, 131, MaxSpans} {
					if got := batchUnits(text, punct, max); !slices.Equal(got, want) {
						t.Fatalf("vector %v, trial %d, punct %v, %d a batch: units of %q:\n got %x\nwant %x", vector, trial, punct, max, text, got, want)
					}
				}
			}
		}
	}
}
