package shingle

import "github.com/neardup/neardup/internal/token"

// DefaultNormalization returns the normalization a unit has unless told:
// width and punct for char shingles, width for the others (punct does not
// change them).
func DefaultNormalization(u Unit) token.Normalization {
	if u == Char {
		return token.Normalization{Width: true, Punct: true}
	}
	return token.Normalization{Width: true}
}
