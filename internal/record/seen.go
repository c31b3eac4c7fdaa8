package record

import "strconv"

// This file holds the record of the seen stage: a paragraph whose word
// n-grams were mostly seen before, with the counts that decided it.
//
//	seen part   doc#START-END TAB seen TAB total     ParseSeen, AppendSeen
//
// The part id is the parts stage's (AppendPartID); seen is how many of the
// paragraph's n-grams (counted with repetitions, in text order) were in the
// filter, total how many it has: 0 ≤ seen ≤ total, total ≥ 1, both decimal
// without leading zeros. keep --drop-parts takes the line as it takes a
// part id.

// Seen is a record of the seen stage; Part aliases the line it was parsed
// from.
type Seen struct {
	Part        []byte
	Seen, Total int
}

// AppendSeen appends the seen record of the part text[start:end] of
// document doc (its escaped id).
func AppendSeen(dst, doc []byte, start, end, seen, total int) []byte {
	dst = AppendPartID(dst, doc, start, end)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(seen), 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(total), 10)
	return append(dst, '\n')
}

// ParseSeen parses a seen record; the error is a *LineError.
func ParseSeen(s *Seen, line []byte) error {
	var buf [3][]byte
	f, n := SplitN(buf[:0], line, 3)
	if n != 3 {
		return Bad("want doc#START-END TAB seen TAB total, found %d field(s)", n)
	}
	if _, _, _, err := ParsePartID(f[0]); err != nil {
		return err
	}
	seen, ok1 := parseOffset(f[1])
	total, ok2 := parseOffset(f[2])
	if !ok1 || !ok2 || total < 1 || seen > total {
		return Bad("want doc#START-END TAB seen TAB total with 0 ≤ seen ≤ total and total ≥ 1 (decimal, no leading zero), found %q and %q", clip(f[1]), clip(f[2]))
	}
	s.Part, s.Seen, s.Total = f[0], seen, total
	return nil
}
