package parts

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/token"
)

// Range is a part of a text: text[Start:End], byte offsets.
type Range struct{ Start, End int }

// Paragraphs appends the paragraphs of text, in order: runs of non-blank
// lines separated by one or more blank lines. A blank line is empty or holds
// only white space (Unicode White_Space: spaces, TAB, CR, NBSP, …); lines end
// at LF, so a CRLF line's CR is white space at its end. A paragraph runs from
// the first byte of its first line to the end of its last line, that line's
// LF (or CRLF) included, or to the end of the text when it has none; the
// blank lines between paragraphs are in none. A paragraph is never white
// space only.
func Paragraphs(dst []Range, text []byte) []Range {
	start := -1 // the start of the paragraph under way, -1 between them
	for i := 0; i < len(text); {
		end := len(text)
		if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		if IsBlank(text[i:end]) {
			if start >= 0 {
				dst = append(dst, Range{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i = end
	}
	if start >= 0 {
		dst = append(dst, Range{start, len(text)})
	}
	return dst
}

// asciiSpace marks the ASCII bytes that are white space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// IsBlank reports whether b is empty or white space only (Unicode
// White_Space). Bytes that are not UTF-8 are not white space.
func IsBlank(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if !asciiSpace[c] {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// Windows appends the windows of n tokens, one starting every stride
// tokens, of a text whose word tokens are spans (shingle's tokenizer,
// Tokenizer.AppendSpans): a window runs from the start of its first token
// to the end of its last. The windows start at tokens 0, stride, 2·stride,
// … and end with the first that reaches the last token, which may be
// shorter; a text of fewer than n tokens is one window of all of them, one
// of none has none. ns, when not nil, gets each window's number of tokens.
func Windows(dst []Range, ns []int, spans []token.Span, n, stride int) ([]Range, []int) {
	for i := 0; i < len(spans); i += stride {
		j := min(i+n, len(spans))
		dst = append(dst, Range{spans[i].Start, spans[j-1].End})
		if ns != nil {
			ns = append(ns, j-i)
		}
		if j == len(spans) {
			break
		}
	}
	return dst, ns
}
