package record

import (
	"math"
	"strconv"
)

// The words of band's header that later stages read: the scheme, the
// threshold the banding was chosen for, and the parameters of containment
// and Hamming keys.
const (
	// SchemeKey is the key of a band header's scheme.
	SchemeKey = "scheme"
	// SchemeMinHash, SchemeHamming and SchemeContainment are the values of
	// a band header's scheme=.
	SchemeMinHash     = "minhash"
	SchemeHamming     = "hamming"
	SchemeContainment = "containment"
	// ThresholdKey is the key of the similarity threshold a MinHash
	// banding was chosen for (read by verify as its default).
	ThresholdKey = "threshold"
	// DistanceKey is the key of the Euclidean distance a banding of
	// p-stable hashes was chosen for (band --distance; verify --euclidean
	// takes it as its default).
	DistanceKey = "distance"
	// ContainmentKey is the key of the containment threshold of
	// containment keys, ContainModeKey that of their mode.
	ContainmentKey = "containment"
	ContainModeKey = "mode"
)

// Containment modes, the values of ContainModeKey.
const (
	ContainCorpus = "corpus"
	ContainStored = "stored"
	ContainQuery  = "query"
)

// ContainNeed returns t, the least number of shingles a document of size n
// shares with another that holds it at containment ≥ threshold: the least
// t with t/n ≥ threshold as verify computes it (in float64).
func ContainNeed(threshold float64, n uint64) uint64 {
	t := uint64(math.Ceil(threshold * float64(n)))
	for t > 0 && float64(t-1)/float64(n) >= threshold {
		t--
	}
	for float64(t)/float64(n) < threshold {
		t++
	}
	return max(t, 1)
}

// HammingParams are what a Hamming band header names of its layout: the
// fingerprint bits F, the distance K, the blocks, their widths ("11,11,10")
// and the number of tables.
type HammingParams struct {
	F, K, Blocks int
	Widths       string
	Tables       int
}

// HammingHeader returns the header of a band stage keyed by the Hamming
// scheme p describes.
func HammingHeader(p HammingParams) Header {
	return NewHeader("band", SchemeKey, SchemeHamming, "f", strconv.Itoa(p.F), "k", strconv.Itoa(p.K),
		"blocks", strconv.Itoa(p.Blocks), "widths", p.Widths, "tables", strconv.Itoa(p.Tables))
}

// ParseHammingHeader returns the parameters a band header names, and false
// when it is not that of a Hamming band. A parameter that is absent or not
// a number is -1.
func ParseHammingHeader(h Header) (HammingParams, bool) {
	if s, _ := h.Get(SchemeKey); s != SchemeHamming {
		return HammingParams{}, false
	}
	w, _ := h.Get("widths")
	return HammingParams{F: h.Int("f", -1), K: h.Int("k", -1), Blocks: h.Int("blocks", -1), Widths: w, Tables: h.Int("tables", -1)}, true
}

// SketchLength is the number of values every signature has: N as the
// sketch header at Pos says (FromHeader), or as the first signature, at
// Pos, has when the input has no header. N < 0 checks nothing.
type SketchLength struct {
	N          int
	Pos        Pos
	FromHeader bool
}

// Check refuses a signature of another length than l.N.
func (l SketchLength) Check(values int) error {
	switch {
	case l.N < 0 || values == l.N:
		return nil
	case l.FromHeader:
		return Bad("signature has %d values, the sketch header (%s) says n=%d", values, l.Pos, l.N)
	}
	return Bad("signature has %d values, the first signature (%s) has %d: without a sketch header the first fixes the length", values, l.Pos, l.N)
}
