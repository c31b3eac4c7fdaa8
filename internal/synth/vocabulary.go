package synth

import (
	"encoding/binary"
	"math"
)

// Syllables are a consonant and a vowel: 18·5 = 90 of them.
const (
	consonants = "bcdfghjklmnprstvwz"
	vowels     = "aeiou"
	syllables  = len(consonants) * len(vowels)
)

// maxWordLen bounds the spelling of a word: 4 syllables, enough for 90^4
// words.
const maxWordLen = 8

// vocabulary holds the spelling of every word and draws words under a Zipf
// law by Vose's alias method: one uniform uint64 per word, O(1).
type vocabulary struct {
	// spelling[w] holds the letters of word w in its low len[w] bytes,
	// first letter lowest, so that a word is copied with one store.
	spelling []uint64
	len      []uint8
	// column[i] holds in its low half the chance, scaled to 2^32, of
	// keeping column i and in its high half the word drawn otherwise, so
	// that a draw reads one entry.
	column []uint64
}

// spell appends the spelling of word number w: w written in bijective base
// 90 with syllables as digits, so that every number has its own word and the
// frequent (small) numbers are the short words.
func spell(dst []byte, w int) []byte {
	var rev [16]byte
	n := 0
	for v := w + 1; v > 0; {
		v--
		s := v % syllables
		rev[n] = vowels[s%len(vowels)]
		rev[n+1] = consonants[s/len(vowels)]
		n += 2
		v /= syllables
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, rev[i])
	}
	return dst
}

func newVocabulary(size int, s float64) *vocabulary {
	v := &vocabulary{spelling: make([]uint64, size), len: make([]uint8, size)}
	var b [maxWordLen]byte
	for w := range size {
		n := len(spell(b[:0], w))
		clear(b[n:])
		v.spelling[w] = binary.LittleEndian.Uint64(b[:])
		v.len[w] = uint8(n)
	}
	weights := make([]float64, size)
	total := 0.0
	for r := range weights {
		weights[r] = math.Pow(float64(r+1), -s)
		total += weights[r]
	}
	v.column = aliasTable(weights, total)
	return v
}

// aliasTable builds Vose's alias table of weights that add up to total, as
// vocabulary.column holds it.
func aliasTable(weights []float64, total float64) []uint64 {
	n := len(weights)
	scaled := make([]float64, n)
	var small, large []int32
	for i, w := range weights {
		scaled[i] = float64(w*float64(n)) / total
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	column := make([]uint64, n)
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		g := large[len(large)-1]
		column[l] = uint64(g)<<32 | uint64(scaled[l]*(1<<32))
		scaled[g] = (scaled[g] + scaled[l]) - 1
		if scaled[g] < 1 {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	// What is left has weight 1 up to rounding: it draws itself.
	for _, i := range append(small, large...) {
		column[i] = uint64(i)<<32 | math.MaxUint32
	}
	return column
}

// sample draws a word from a uniform uint64: the high half picks a column,
// the low half decides between the column and its alias.
func (v *vocabulary) sample(u uint64) int32 {
	i := int32((u >> 32) * uint64(len(v.column)) >> 32)
	c := v.column[i]
	if uint32(u) < uint32(c) {
		return i
	}
	return int32(c >> 32)
}

// append appends the spelling of word w.
func (v *vocabulary) append(dst []byte, w int32) []byte {
	var b [maxWordLen]byte
	binary.LittleEndian.PutUint64(b[:], v.spelling[w])
	return append(dst, b[:v.len[w]]...)
}

// put writes the spelling of word w at dst[n:], which must have room for
// maxWordLen bytes, and returns the length of the spelling.
func (v *vocabulary) put(dst []byte, n int, w int32) int {
	binary.LittleEndian.PutUint64(dst[n:n+maxWordLen], v.spelling[w])
	return int(v.len[w])
}
