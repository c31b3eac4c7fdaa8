// Package tsv reads the toolkit's TSV documents and writes candidate pairs
// in the toolkit's layout, for the peers the benchmark runs (docs/DESIGN.md,
// Records).
//
// A document is a line "id TAB text". The text has its TAB, LF, CR and
// backslash escaped as \t, \n, \r and \\; a backslash before anything else
// stands for itself. An id is kept in its escaped form, as the stages
// compare and write it, so that the pairs a peer writes name the
// documents as neardup's pairs do.
package tsv

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
)

// Unescape appends src to dst with \t, \n, \r and \\ turned into TAB, LF,
// CR and a backslash.
func Unescape(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, '\\')
		if i < 0 || i == len(src)-1 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		switch src[i+1] {
		case 't':
			dst = append(dst, '\t')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case '\\':
			dst = append(dst, '\\')
		default:
			dst = append(dst, src[i:i+2]...)
		}
		src = src[i+2:]
	}
}

// Reader reads documents one line at a time.
type Reader struct {
	r    *bufio.Reader
	name string
	line int
	text []byte
}

// NewReader reads documents from r; name is the file's name in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 1<<20), name: name}
}

// Next returns the next document's id (escaped) and text (unescaped),
// valid until the next call, or io.EOF after the last. A line without a
// TAB, or with an empty id, is an error naming the file and line.
func (d *Reader) Next() (id string, text []byte, err error) {
	line, err := d.r.ReadBytes('\n')
	if len(line) == 0 {
		if err == nil {
			err = io.EOF
		}
		return "", nil, err
	}
	if err != nil && err != io.EOF {
		return "", nil, err
	}
	d.line++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	tab := bytes.IndexByte(line, '\t')
	if tab < 0 {
		return "", nil, fmt.Errorf("%s:%d: a document is id TAB text: no TAB", d.name, d.line)
	}
	if tab == 0 {
		return "", nil, fmt.Errorf("%s:%d: empty id", d.name, d.line)
	}
	d.text = Unescape(d.text[:0], line[tab+1:])
	return string(line[:tab]), d.text, nil
}

// Pair is a candidate pair, A < B bytewise.
type Pair struct{ A, B string }

// NewPair returns the pair of x and y in order.
func NewPair(x, y string) Pair {
	if y < x {
		x, y = y, x
	}
	return Pair{x, y}
}

// WritePairs writes header (when not empty) and then each pair of ps once,
// "A TAB B", sorted bytewise by A and then B. It sorts ps.
func WritePairs(w io.Writer, header string, ps []Pair) error {
	slices.SortFunc(ps, func(p, q Pair) int {
		return cmp.Or(cmp.Compare(p.A, q.A), cmp.Compare(p.B, q.B))
	})
	ps = slices.Compact(ps)
	bw := bufio.NewWriter(w)
	if header != "" {
		bw.WriteString(header)
		bw.WriteByte('\n')
	}
	for _, p := range ps {
		bw.WriteString(p.A)
		bw.WriteByte('\t')
		bw.WriteString(p.B)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
