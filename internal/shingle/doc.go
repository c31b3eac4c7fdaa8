// Package shingle turns text into shingles and shingle hashes.
//
// Normalisation (both units): Unicode lower-casing rune by rune as Go's
// strings.ToLower does it (invalid UTF-8 bytes become U+FFFD).
//
// Word tokens are maximal runs of runes for which unicode.IsLetter or
// unicode.IsDigit holds, except that every rune of the Han, Hiragana, Katakana
// and Hangul scripts is a token on its own; any other rune ends the current
// token and is dropped. A word shingle is k consecutive tokens; a text with 1
// to k-1 tokens has exactly one shingle (all its tokens) and a text without
// tokens has none. A stop-word shingle is a stop word and the k-1 tokens that
// follow it (fewer at the end of the text).
//
// Char shingles are k consecutive code points of the lower-cased text in
// which every run of white space (unicode.IsSpace) is one space. A text of 1
// to k-1 code points has one shingle, an empty text none.
//
// Two hash schemes name shingles with 64 bits:
//
//   - tok64 (the default): every unit (token, or code point) is hashed once,
//     and the k unit hashes of a shingle are combined by a polynomial mod 2^64
//     that a window rolls in O(1), then mixed with the seed. See Hasher.
//   - xxh64: XXH64, seeded with --seed, of the shingle's UTF-8 bytes (the
//     tokens joined by one space, or the code points). Any program can
//     compute it, at the cost of hashing every byte k times.
package shingle
