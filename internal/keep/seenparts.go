package keep

import (
	"bytes"

	"github.com/neardup/neardup/internal/record"
)

// seenPartID returns the part id of a line of three fields or more, which
// keep --drop-parts takes only as a record of the seen stage, "doc#START-END
// TAB seen TAB total" (a part line has one field or two: a line of three
// was refused before, so none that was read before reads otherwise now).
func seenPartID(line []byte) ([]byte, error) {
	n := 1 + bytes.Count(line, []byte{'\t'})
	const want = "want a part id (doc#START-END), then TAB and its text or nothing, found %d fields"
	if n != 3 {
		return nil, record.Bad(want, n)
	}
	var s record.Seen
	if err := record.ParseSeen(&s, line); err != nil {
		return nil, record.Bad(want+" (nor is it a seen record: %s)", n, err.Error())
	}
	return s.Part, nil
}
