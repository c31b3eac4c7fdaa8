package token

import (
	"fmt"
	"strings"
)

// Normalization is what a text is folded by before it is shingled, beyond
// the lower case every unit has. It changes the hash values, so the shingle
// header names it (normalize=).
type Normalization struct {
	// Width folds the full-width and half-width forms of the Halfwidth and
	// Fullwidth Forms block as NFKC does: full-width ASCII (Ａ，１！) to
	// ASCII, half-width katakana (ｶﾞ) to full-width (ガ), the full-width
	// signs ￠￡￥ to ¢£¥.
	Width bool
	// Punct (char shingles) keeps only letters, digits and marks: a run of
	// anything else (white space, punctuation, symbols) becomes one space
	// between two words and nothing next to a Han, Hiragana, Katakana or
	// Hangul character, at the start or at the end. Word shingles ignore
	// punctuation and spacing already.
	Punct bool
}

// ParseNormalization parses "none", or a comma-separated list of "width"
// and "punct".
func ParseNormalization(s string) (Normalization, error) {
	var n Normalization
	if s == "none" {
		return n, nil
	}
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "width":
			n.Width = true
		case "punct":
			n.Punct = true
		default:
			return n, fmt.Errorf("unknown normalization %q: want none, or width and punct separated by a comma", f)
		}
	}
	return n, nil
}

// String is the header value: "none", "width", "punct" or "width,punct".
func (n Normalization) String() string {
	switch {
	case n.Width && n.Punct:
		return "width,punct"
	case n.Width:
		return "width"
	case n.Punct:
		return "punct"
	}
	return "none"
}
