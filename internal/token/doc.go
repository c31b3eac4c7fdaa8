// Package token finds the units of a text that the stages compare: its
// lower-cased word tokens (Tokenizer; their byte ranges, AppendSpans and NextSpan; their
// hashes with their ranges, TokenHasher) and its normalised code points
// (Chars), under the normalisations that fold a text first (Normalization:
// width forms, punctuation). The shingle stage hashes shingles of these
// units; parts cuts documents into token windows, seen and spans compare
// windows of tokens, without shingling.
package token
