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
	EachParagraph(text, func(r Range) error {
		dst = append(dst, r)
		return nil
	})
	return dst
}

// EachParagraph calls fn with each paragraph of text (Paragraphs's), in
// order, holding none of them. It stops at fn's first error and returns it.
func EachParagraph(text []byte, fn func(Range) error) error {
	start := -1 // the start of the paragraph under way, -1 between them
	for i := 0; i < len(text); {
		end := len(text)
		if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		if IsBlank(text[i:end]) {
			if start >= 0 {
				if err := fn(Range{start, i}); err != nil {
					return err
				}
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i = end
	}
	if start >= 0 {
		return fn(Range{start, len(text)})
	}
	return nil
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

// A Windower cuts the windows of texts as Windows does, finding their
// tokens as it goes: it holds the starts of the windows under way (about
// n/stride of them), not a span per token, so that its memory does not grow
// with the text. The zero value is ready to use.
type Windower struct {
	tok    token.Tokenizer
	starts []int // the byte starts of the windows under way, in order
}

// Each calls fn with each window of text that Windows gives for the
// tokens of text (Tokenizer.NextSpan), in order, and its number of tokens.
// It stops at fn's first error and returns it.
func (w *Windower) Each(text []byte, n, stride int, fn func(r Range, tokens int) error) error {
	w.tok.Reset(text)
	w.starts = w.starts[:0]
	head := 0    // w.starts[head] is the window under way that started first
	first := 0   // the token it starts at
	tokens := 0  // tokens found so far
	reached := 0 // tokens when a window last ended: the last token, at the end
	var last token.Span
	for {
		sp, ok := w.tok.NextSpan()
		if !ok {
			break
		}
		if tokens%stride == 0 {
			w.starts = append(w.starts, sp.Start)
		}
		tokens++
		last = sp
		if tokens-first < n {
			continue
		}
		if err := fn(Range{w.starts[head], sp.End}, n); err != nil {
			return err
		}
		head++
		first += stride
		reached = tokens
		if head >= 1024 && 2*head >= len(w.starts) {
			w.starts = w.starts[:copy(w.starts, w.starts[head:])]
			head = 0
		}
	}
	if tokens == 0 || reached == tokens {
		return nil
	}
	// The first window that reaches the last token, shorter than n (each
	// that started before it ended before the last token).
	return fn(Range{w.starts[head], last.End}, tokens-first)
}
