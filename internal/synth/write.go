package synth

import (
	"bufio"
	"io"
	"strconv"

	"github.com/neardup/neardup/internal/record"
)

// Stats count what a corpus holds.
type Stats struct {
	Docs  int
	Bytes int64 // bytes of documents written, line ends included
	// Kinds counts the documents of each kind.
	Kinds [4]int
}

// Write writes the corpus of opt to w, one document a line, and, when truth
// is not nil, the ground truth to it: "copy TAB source TAB kind" for every
// planted document, in the order of the corpus.
func Write(w, truth io.Writer, opt Options) (Stats, error) {
	g, err := New(opt)
	if err != nil {
		return Stats{}, err
	}
	out := bufio.NewWriterSize(w, 1<<20)
	var tw *bufio.Writer
	if truth != nil {
		tw = bufio.NewWriterSize(truth, 64<<10)
	}
	var st Stats
	var line, text, tline []byte
	for i := range opt.Docs {
		var p Plant
		text, p = g.AppendText(text[:0], i)
		line = g.appendLine(line[:0], i, text)
		if _, err := out.Write(line); err != nil {
			return st, err
		}
		st.Docs++
		st.Bytes += int64(len(line))
		st.Kinds[p.Kind]++
		if tw != nil && p.Kind != Original {
			tline = g.AppendID(tline[:0], i)
			tline = append(tline, '\t')
			tline = g.AppendID(tline, p.Source)
			tline = append(tline, '\t')
			tline = append(tline, p.Kind.String()...)
			tline = append(tline, '\n')
			if _, err := tw.Write(tline); err != nil {
				return st, err
			}
		}
	}
	if tw != nil {
		if err := tw.Flush(); err != nil {
			return st, err
		}
	}
	return st, out.Flush()
}

// appendLine appends document i with text as one line in the output format.
func (g *Generator) appendLine(dst []byte, i int, text []byte) []byte {
	if g.opt.Format == JSONL {
		dst = append(dst, `{"id":"`...)
		dst = g.AppendID(dst, i)
		dst = append(dst, `","text":`...)
		dst = appendJSONString(dst, text)
		return append(dst, "}\n"...)
	}
	dst = g.AppendID(dst, i)
	dst = append(dst, '\t')
	dst = record.Escape(dst, text)
	return append(dst, '\n')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, `\u00`...)
			dst = strconv.AppendUint(dst, uint64(c)>>4, 16)
			dst = strconv.AppendUint(dst, uint64(c)&0xf, 16)
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
