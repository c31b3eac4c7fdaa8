package keep

import (
	"bytes"

	"github.com/neardup/neardup/internal/record"
)

// partLine takes a line of the --drop-parts file apart: the part id and,
// when the line gives it (parts' own lines), the part's text.
type partLine func(line []byte) (id, text []byte, withText bool, err error)

// partLines are the stages whose lines --drop-parts reads, in the order
// their headers are looked for (seen's file has the parts header too).
var partLines = []struct {
	stage string
	line  partLine
}{{"seen", seenPartLine}, {"spans", spanPartLine}, {"parts", partsLine}}

// partLineOf chooses how the lines of the --drop-parts file are read, from
// the header of the stage that wrote it. A file without one of these is
// read as before headers said (headerlessPartLine).
func partLineOf(headers *record.HeaderSet) partLine {
	for _, p := range partLines {
		if _, ok := headers.Get(p.stage); ok {
			return p.line
		}
	}
	return headerlessPartLine
}

// wantPartLine is the error of a line with more fields than parts writes.
const wantPartLine = "want a part id (doc#START-END), then TAB and its text or nothing, found %d fields"

// partsLine reads a line of parts: a part id, then TAB and its text or
// nothing.
func partsLine(line []byte) (id, text []byte, withText bool, err error) {
	id, text, withText = record.Cut(line)
	if withText && bytes.IndexByte(text, '\t') >= 0 {
		return nil, nil, false, record.Bad(wantPartLine, 1+bytes.Count(line, []byte{'\t'}))
	}
	return id, text, withText, nil
}

// seenPartLine reads a record of seen, "doc#START-END TAB seen TAB
// total", or its part id alone (cut -f1 keeps the header).
func seenPartLine(line []byte) (id, text []byte, withText bool, err error) {
	if bytes.IndexByte(line, '\t') < 0 {
		return line, nil, false, nil
	}
	var s record.Seen
	err = record.ParseSeen(&s, line)
	return s.Part, nil, false, err
}

// spanPartLine reads a record of spans, "doc#START-END TAB count TAB
// first#START-END" (every occurrence of a repeated span, the first too),
// or its part id alone.
func spanPartLine(line []byte) (id, text []byte, withText bool, err error) {
	var sp record.Span
	if bytes.IndexByte(line, '\t') >= 0 {
		if err := record.ParseSpan(&sp, line); err != nil {
			return nil, nil, false, err
		}
	}
	id, _, _ = record.Cut(line)
	return id, nil, false, nil
}

// headerlessPartLine reads a line of a file without a parts, seen or spans
// header: a part line, or with three fields a seen or a spans record. A
// part line has one field or two: a line of three was refused before
// seen and spans, so none that was read before reads otherwise now.
func headerlessPartLine(line []byte) (id, text []byte, withText bool, err error) {
	n := 1 + bytes.Count(line, []byte{'\t'})
	if n != 3 {
		return partsLine(line)
	}
	if id, _, _, err = seenPartLine(line); err == nil {
		return id, nil, false, nil
	}
	if id, _, _, errSpan := spanPartLine(line); errSpan == nil {
		return id, nil, false, nil
	}
	return nil, nil, false, record.Bad(wantPartLine+" (nor is it a seen record or a spans record: %s)", n, err.Error())
}
