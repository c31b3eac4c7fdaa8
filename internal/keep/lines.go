package keep

import (
	"bytes"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// rawLines calls fn for each line of a chunk of lines, in order: raw with
// its line end as read, line without it, where raw starts in c.Data, its
// place and its ordinal (its number across all inputs). fn returns false
// to stop.
func rawLines(c *stream.Chunk, fn func(raw, line []byte, at int, pos record.Pos, ordinal int64) bool) {
	data, lineNo := c.Data, c.FirstLine
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data) - 1 // not met: every chunk line ends in LF
		}
		raw, at := data[:i+1], len(c.Data)-len(data)
		data = data[i+1:]
		pos := record.Pos{File: c.File, Line: lineNo}
		ordinal := c.FirstOrdinal + (lineNo - c.FirstLine)
		lineNo++
		if !fn(raw, record.TrimEOL(raw), at, pos, ordinal) {
			return
		}
	}
}
