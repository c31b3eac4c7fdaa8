package token

import (
	"bytes"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
)

// TokenHash is a word token of a text: its byte range in the text as given
// (before width folding) and two independent 64-bit hashes of its bytes as
// word shingles see them (lower-cased, width-folded under Width): H1 is
// XXH64 with seed 0 (the token hash of word shingles), H2 XXH64 with seed
// TokenHash2Seed. The spans stage compares windows of tokens by them.
type TokenHash struct {
	Span
	H1, H2 uint64
}

// TokenHash2Seed is the seed of TokenHash.H2.
const TokenHash2Seed = 0x5bd1e9955bd1e995

// TokenHasher finds the TokenHashes of texts; its zero value is ready. It
// keeps scratch space: one per goroutine.
type TokenHasher struct {
	tok    Tokenizer
	folded []byte
	marks  []foldMark
	digest *xxhash.Digest
	mapped bool
	mark   int
}

// foldMark says that from byte at of a width-folded text on, the folded
// bytes map to the text's bytes shifted by delta (src = at' + delta for
// at' ≥ at), up to the next mark; a folded rune that is shorter or longer
// than the rune (or two) it comes from makes one after it, and one before
// it that maps its every byte to the start of its source.
type foldMark struct{ at, delta int }

// Append appends the word tokens of text, in text order: the tokens of
// word shingles (Tokenizer, after width folding when width is set), each
// with the byte range in text of the runes it was made from.
func (h *TokenHasher) Append(dst []TokenHash, text []byte, width bool) []TokenHash {
	h.Reset(text, width)
	for {
		th, ok := h.Next()
		if !ok {
			return dst
		}
		dst = append(dst, th)
	}
}

// Reset starts on text: Next gives its tokens one by one, as Append does,
// holding none of them (the width-folded copy of the text, when it needs
// one, and no more).
func (h *TokenHasher) Reset(text []byte, width bool) {
	if h.digest == nil {
		h.digest = xxhash.NewWithSeed(TokenHash2Seed)
	}
	src := text
	h.mapped = width && bytes.IndexByte(text, 0xef) >= 0
	if h.mapped {
		h.folded, h.marks = appendFoldWidthMarks(h.folded[:0], h.marks[:0], text)
		src = h.folded
	}
	h.tok.Reset(src)
	h.mark = 0
}

// Next returns the next token of the text; ok is false at its end.
func (h *TokenHasher) Next() (th TokenHash, ok bool) {
	t := &h.tok
	tok, ok := t.slowNext()
	if !ok {
		return th, false
	}
	th = TokenHash{Span: Span{t.start, t.pos}, H1: Hash(tok)}
	h.digest.ResetWithSeed(TokenHash2Seed)
	h.digest.Write(tok)
	th.H2 = h.digest.Sum64()
	if h.mapped {
		m := h.mark // the mark that holds the token's start (tokens come in order)
		for m+1 < len(h.marks) && h.marks[m+1].at <= th.Start {
			m++
		}
		h.mark = m
		th.Start = h.source(m, th.Start)
		for m+1 < len(h.marks) && h.marks[m+1].at <= th.End {
			m++
		}
		th.End = h.source(m, th.End)
	}
	return th, true
}

// source maps byte x of the folded text, under mark m, to the text.
func (h *TokenHasher) source(m, x int) int {
	k := h.marks[m]
	if k.delta < 0 { // a folded rune's bytes: all map to its source's start
		return ^k.delta
	}
	return x + k.delta
}

// appendFoldWidthMarks appends text width-folded as appendFoldWidth folds
// it, and the marks that map the folded bytes back to text (foldMark): a
// folded rune maps to the start of the rune (or the two runes composed into
// one) it comes from, the bytes after it to theirs, and the end of the
// folded text to len(text).
func appendFoldWidthMarks(dst []byte, marks []foldMark, text []byte) ([]byte, []foldMark) {
	marks = append(marks, foldMark{0, 0})
	i := 0
	for i < len(text) {
		j := bytes.IndexByte(text[i:], 0xef)
		if j < 0 {
			dst = append(dst, text[i:]...)
			break
		}
		dst = append(dst, text[i:i+j]...)
		i += j
		_, size := utf8.DecodeRune(text[i:])
		one := appendFoldWidth(nil, text[i:i+size])
		end := i + size
		// A voiced or semi-voiced sound mark after it may compose with
		// it: then the two runes make one, which maps to the first.
		if end+3 <= len(text) && text[end] == 0xef && text[end+1] == 0xbe && (text[end+2] == 0x9e || text[end+2] == 0x9f) {
			two := appendFoldWidth(nil, text[i:end+3])
			if !bytes.Equal(two, append(one, appendFoldWidth(nil, text[end:end+3])...)) {
				one, end = two, end+3
			}
		}
		if len(one) == end-i {
			dst = append(dst, one...) // the same length: bytes map one to one
			i = end
			continue
		}
		marks = append(marks, foldMark{len(dst), ^i})
		dst = append(dst, one...)
		marks = append(marks, foldMark{len(dst), end - len(dst)})
		i = end
	}
	return dst, marks
}

// FoldWidth appends text width-folded as word shingles fold it under
// --normalize width (Normalization.Width).
func FoldWidth(dst, text []byte) []byte { return appendFoldWidth(dst, text) }
