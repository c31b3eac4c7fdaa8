package record

import (
	"bytes"
	"strconv"
)

// This file holds the records of parts (the parts stage, keep --drop-parts):
// the part id that names a document and a byte range of its text, and the
// line of keep's report of what was removed.
//
//	part id        doc#START-END                     ParsePartID, AppendPartID
//	removed part   doc TAB start TAB end TAB bytes   ParseRemoved, AppendRemoved
//
// START and END are byte offsets into the document's text as the reader
// gives it (START inclusive, END exclusive, START < END), in decimal without
// leading zeros. The document id is everything before the last '#': an id
// may hold '#' itself (a URL with a fragment), since START-END never does.

// AppendPartID appends the id of the part text[start:end] of document doc
// (an id in its escaped form): doc#start-end.
func AppendPartID(dst, doc []byte, start, end int) []byte {
	dst = append(dst, doc...)
	dst = append(dst, '#')
	dst = strconv.AppendInt(dst, int64(start), 10)
	dst = append(dst, '-')
	return strconv.AppendInt(dst, int64(end), 10)
}

// ParsePartID parses a part id: the document's id (escaped, as records carry
// it; it aliases id) and the range. The error is a *LineError.
func ParsePartID(id []byte) (doc []byte, start, end int, err error) {
	i := bytes.LastIndexByte(id, '#')
	if i < 0 {
		return nil, 0, 0, Bad("part id %s: want doc#START-END, found no '#'", clip(id))
	}
	doc, rng := id[:i], id[i+1:]
	j := bytes.IndexByte(rng, '-')
	if j < 0 {
		return nil, 0, 0, Bad("part id %s: want doc#START-END, found no '-' after the last '#'", clip(id))
	}
	var ok1, ok2 bool
	start, ok1 = parseOffset(rng[:j])
	end, ok2 = parseOffset(rng[j+1:])
	if !ok1 || !ok2 {
		return nil, 0, 0, Bad("part id %s: want doc#START-END with START and END decimal byte offsets (no sign, no leading zero)", clip(id))
	}
	if start >= end {
		return nil, 0, 0, Bad("part id %s: the range %d-%d is empty: want START < END", clip(id), start, end)
	}
	if err := CheckID(doc); err != nil {
		return nil, 0, 0, Bad("part id %s: %v", clip(id), err)
	}
	return doc, start, end, nil
}

// maxOffset bounds the offsets of a part: a document's text is at most a
// line (stream.MaxLine, 1 GiB), so 2^31 leaves room.
const maxOffset = 1<<31 - 1

// parseOffset parses a decimal offset in canonical form: digits, no leading
// zero but for 0 itself, at most maxOffset.
func parseOffset(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 10 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	return n, n <= maxOffset
}

// Removed is a line of keep --drop-parts --report: a byte range removed from
// a document's text (ranges that overlapped or touched merged into one), and
// its length in bytes.
type Removed struct {
	Doc        []byte
	Start, End int
}

// AppendRemoved appends the report line "doc TAB start TAB end TAB bytes".
func AppendRemoved(dst []byte, r Removed) []byte {
	dst = append(dst, r.Doc...)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(r.Start), 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(r.End), 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(r.End-r.Start), 10)
	return append(dst, '\n')
}

// ParseRemoved parses a report line of keep --drop-parts; Doc aliases line.
func ParseRemoved(r *Removed, line []byte) error {
	var buf [4][]byte
	f, n := SplitN(buf[:0], line, 4)
	if n != 4 {
		return Bad("want doc TAB start TAB end TAB bytes, found %d field(s)", n)
	}
	if err := CheckID(f[0]); err != nil {
		return err
	}
	start, ok1 := parseOffset(f[1])
	end, ok2 := parseOffset(f[2])
	size, ok3 := parseOffset(f[3])
	if !ok1 || !ok2 || !ok3 || start >= end || size != end-start {
		return Bad("want doc TAB start TAB end TAB bytes with start < end and bytes = end - start")
	}
	r.Doc, r.Start, r.End = f[0], start, end
	return nil
}
