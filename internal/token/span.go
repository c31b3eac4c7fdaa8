package token

// Span is the byte range of a word token in its text: text[Start:End],
// lower-cased, is the token.
type Span struct{ Start, End int }

// AppendSpans appends the byte range of each word token of text, in text
// order: the tokens Scan and Token give (the tokens of word shingles, before
// width folding), a byte at a time.
func (t *Tokenizer) AppendSpans(dst []Span, text []byte) []Span {
	t.Reset(text)
	for {
		sp, ok := t.NextSpan()
		if !ok {
			return dst
		}
		dst = append(dst, sp)
	}
}

// NextSpan returns the byte range of the next word token of the text
// Reset gave, as AppendSpans finds them; ok is false at the end. It holds
// nothing per token: the parts stage cuts the windows of a text of any
// length with it.
func (t *Tokenizer) NextSpan() (sp Span, ok bool) {
	if _, ok := t.slowNext(); !ok {
		return Span{}, false
	}
	return Span{t.start, t.pos}, true
}
