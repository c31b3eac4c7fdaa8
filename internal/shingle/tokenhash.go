package shingle

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
	offs   []int32
	digest *xxhash.Digest
}

// Append appends the word tokens of text, in text order: the tokens of
// word shingles (Tokenizer, after width folding when width is set), each
// with the byte range in text of the runes it was made from.
func (h *TokenHasher) Append(dst []TokenHash, text []byte, width bool) []TokenHash {
	if h.digest == nil {
		h.digest = xxhash.NewWithSeed(TokenHash2Seed)
	}
	src := text
	mapped := width && bytes.IndexByte(text, 0xef) >= 0
	if mapped {
		h.folded, h.offs = appendFoldWidthMap(h.folded[:0], h.offs[:0], text)
		src = h.folded
	}
	t := &h.tok
	t.Reset(src)
	for {
		tok, ok := t.slowNext()
		if !ok {
			return dst
		}
		th := TokenHash{Span: Span{t.start, t.pos}, H1: tokenHash(tok)}
		h.digest.ResetWithSeed(TokenHash2Seed)
		h.digest.Write(tok)
		th.H2 = h.digest.Sum64()
		if mapped {
			th.Start, th.End = int(h.offs[th.Start]), int(h.offs[th.End])
		}
		dst = append(dst, th)
	}
}

// appendFoldWidthMap appends text width-folded as appendFoldWidth folds it,
// and to offs, for each byte appended, the offset in text of the rune (or
// the two runes composed into one) it comes from, and then len(text): a
// token's range in the folded text maps to offs[start]:offs[end] in text.
func appendFoldWidthMap(dst []byte, offs []int32, text []byte) ([]byte, []int32) {
	ident := func(from, to int) {
		for j := from; j < to; j++ {
			offs = append(offs, int32(j))
		}
		dst = append(dst, text[from:to]...)
	}
	i := 0
	for i < len(text) {
		j := bytes.IndexByte(text[i:], 0xef)
		if j < 0 {
			ident(i, len(text))
			break
		}
		ident(i, i+j)
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
		for range one {
			offs = append(offs, int32(i))
		}
		dst = append(dst, one...)
		i = end
	}
	return dst, append(offs, int32(len(text)))
}

// FoldWidth appends text width-folded as word shingles fold it under
// --normalize width (Normalization.Width).
func FoldWidth(dst, text []byte) []byte { return appendFoldWidth(dst, text) }
