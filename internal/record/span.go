package record

import "strconv"

// This file holds the record of the spans stage: one occurrence of a
// repeated span of word tokens,
//
//	repeated span   doc#START-END TAB COUNT TAB FIRST#START-END   ParseSpan, AppendSpan
//
// The first field is a part id (AppendPartID): the occurrence, a byte range
// of a document's text, so that keep --drop-parts reads the first field of
// the lines it is given. COUNT (decimal, at least 2) is the number of places
// in the corpus where each N-token window of the range occurs; the last
// field is the part id of the first of those places in arrival order (the
// occurrence itself when it is the first).

// Span is a repeated-span record; Doc and First alias the line parsed.
type Span struct {
	Doc                  []byte
	Start, End           int
	Count                int64
	First                []byte
	FirstStart, FirstEnd int
}

// AppendSpan appends the record line of s.
func AppendSpan(dst []byte, s Span) []byte {
	dst = AppendPartID(dst, s.Doc, s.Start, s.End)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, s.Count, 10)
	dst = append(dst, '\t')
	dst = AppendPartID(dst, s.First, s.FirstStart, s.FirstEnd)
	return append(dst, '\n')
}

// ParseSpan parses a repeated-span line; the error is a *LineError.
func ParseSpan(s *Span, line []byte) error {
	var buf [3][]byte
	f, n := SplitN(buf[:0], line, 3)
	if n != 3 {
		return Bad("want doc#START-END TAB count TAB first#START-END, found %d field(s)", n)
	}
	var err error
	if s.Doc, s.Start, s.End, err = ParsePartID(f[0]); err != nil {
		return err
	}
	count, ok := parseOffset(f[1])
	if !ok || count < 2 {
		return Bad("count %s: want a decimal number of places, at least 2", clip(f[1]))
	}
	s.Count = int64(count)
	if s.First, s.FirstStart, s.FirstEnd, err = ParsePartID(f[2]); err != nil {
		return err
	}
	return nil
}
