package token

// Span is the byte range of a word token in its text: text[Start:End],
// lower-cased, is the token.
type Span struct{ Start, End int }

// AppendSpans appends the byte range of each word token of text, in text
// order: the tokens Scan and Token give (the tokens of word shingles, before
// width folding), a byte at a time. The parts stage cuts its windows by
// them.
func (t *Tokenizer) AppendSpans(dst []Span, text []byte) []Span {
	t.Reset(text)
	for {
		if _, ok := t.slowNext(); !ok {
			return dst
		}
		dst = append(dst, Span{t.start, t.pos})
	}
}
