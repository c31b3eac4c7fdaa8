package simhash

import (
	"fmt"
	"math"
)

// Weight says how a feature's count becomes its weight.
type Weight int

// Weights.
const (
	// TF weighs a feature by its count in the document.
	TF Weight = iota
	// LogTF weighs it by 1 + ln(count), damping repeated words.
	LogTF
	// Binary gives every distinct feature weight 1.
	Binary
	// IDF weighs it by count × idf, with the smoothed inverse document
	// frequency idf = ln((1 + N) / (1 + df)) + 1 of a corpus of N
	// documents in which df hold the feature (IDFWeight).
	IDF
)

var weightNames = [...]string{TF: "tf", LogTF: "logtf", Binary: "binary", IDF: "idf"}

func (w Weight) String() string {
	if w >= 0 && int(w) < len(weightNames) {
		return weightNames[w]
	}
	return fmt.Sprintf("Weight(%d)", int(w))
}

// ParseWeight parses a weight name.
func ParseWeight(s string) (Weight, error) {
	for i, n := range weightNames {
		if n == s {
			return Weight(i), nil
		}
	}
	return 0, fmt.Errorf("unknown weight %q: want tf, logtf, binary or idf", s)
}

// Of returns the weight of a feature that occurs count times (count ≥ 1),
// for the weights that need no corpus statistics (not IDF).
func (w Weight) Of(count uint32) float64 {
	switch w {
	case LogTF:
		return 1 + math.Log(float64(count))
	case Binary:
		return 1
	}
	return float64(count)
}

// IDFWeight returns count × (ln((1+docs)/(1+df)) + 1): a feature held by
// every document keeps weight count, a feature no document holds gets the
// most.
func IDFWeight(count uint32, df, docs uint64) float64 {
	return float64(count) * (math.Log(float64(1+docs)/float64(1+df)) + 1)
}
