package keep

import (
	"bytes"

	"github.com/neardup/neardup/internal/record"
)

// recordPartID returns the part id of a line of three fields, which keep
// --drop-parts takes as a record of the seen stage, "doc#START-END TAB seen
// TAB total", or of the spans stage, "doc#START-END TAB count TAB
// first#START-END" (every occurrence of a repeated span, the first too). A
// part line has one field or two: a line of three was refused before, so
// none that was read before reads otherwise now.
func recordPartID(line []byte) ([]byte, error) {
	n := 1 + bytes.Count(line, []byte{'\t'})
	const want = "want a part id (doc#START-END), then TAB and its text or nothing, found %d fields"
	if n != 3 {
		return nil, record.Bad(want, n)
	}
	var s record.Seen
	err := record.ParseSeen(&s, line)
	if err == nil {
		return s.Part, nil
	}
	var sp record.Span
	if record.ParseSpan(&sp, line) == nil {
		id, _, _ := record.Cut(line)
		return id, nil
	}
	return nil, record.Bad(want+" (nor is it a seen record or a spans record: %s)", n, err.Error())
}
