package shingle

// AppendWords appends the hash of every shingle of text, as Append does,
// and returns the number of word tokens of text as well (the seen stage
// leaves out paragraphs of too few). It is for word shingles hashed by
// tok64 (the window counts the tokens) and panics for others.
func (s *Shingler) AppendWords(dst []uint64, text []byte) ([]uint64, int) {
	if s.opt.Unit != Word || s.opt.Scheme != Tok64 {
		panic("shingle: AppendWords is for word shingles hashed by tok64")
	}
	dst = s.Append(dst, text)
	return dst, s.win.n
}
