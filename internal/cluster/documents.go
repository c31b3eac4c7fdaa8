package cluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// docReader reads the documents line by line, in step with their sketches
// (for --topics, and for the vectors of mean centres): find reads on to
// the document with the id asked for, passing over those without a sketch.
// A file read to its end is read again from there when more is asked of
// it, so a file still being written (tail -f) is followed: a document
// whose sketch has come is already in it.
type docReader struct {
	paths   []string
	cur     int
	f       *os.File
	br      *bufio.Reader
	reading input.Reading
	format  string
	parser  *input.DocParser
	line    int64 // lines read in the current file
	// ordinal counts the lines read across the files, for ids that are
	// line numbers, as shingle counts them.
	ordinal int64
	// passed counts the documents passed over, without a sketch; bad is
	// the first line since the last document found that could not be read
	// as one, for the message when none is found.
	passed int64
	bad    error
	canon  []byte
	want   []byte
}

func newDocReader(paths []string, r input.Reading) (*docReader, error) {
	d := &docReader{paths: paths, reading: r, parser: input.NewReadingParser(r, nil)}
	for _, p := range paths {
		switch input.ResolveFormat(r.Format, p) {
		case input.FormatTSV, input.FormatJSONL, input.FormatLines:
		default:
			return nil, fmt.Errorf("--documents %s: cluster reads documents line by line (tsv, jsonl, lines); these are %s", p, input.ResolveFormat(r.Format, p))
		}
	}
	return d, d.open()
}

func (d *docReader) open() error {
	f, err := os.Open(d.paths[d.cur])
	if err != nil {
		return err
	}
	d.f, d.br, d.line = f, bufio.NewReaderSize(f, 1<<20), 0
	d.format = input.ResolveFormat(d.reading.Format, d.paths[d.cur])
	return nil
}

// close closes the file and says how many documents had no sketch.
func (d *docReader) close(stderr io.Writer) {
	if d.f != nil {
		d.f.Close()
	}
	if d.passed > 0 {
		fmt.Fprintf(stderr, "cluster: %d document(s) of --documents had no sketch: passed over\n", d.passed)
	}
}

// pos returns the place of the document find returned last.
func (d *docReader) pos() record.Pos { return record.Pos{File: d.paths[d.cur], Line: d.line} }

// find returns the text of the document id, reading on past documents
// with other ids. The text is valid until the next call.
func (d *docReader) find(id []byte) ([]byte, error) {
	d.want = record.CanonicalID(d.want[:0], id)
	d.bad = nil
	for {
		line, err := d.br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			if d.cur+1 == len(d.paths) {
				hint := ""
				if d.bad != nil {
					hint = fmt.Sprintf(" (a line passed over could not be read as a document: %v)", d.bad)
				}
				return nil, fmt.Errorf("%s:%d: document %s is not in --documents after the last line read: the documents must be those the sketches were made from, in their order%s", d.paths[d.cur], d.line, id, hint)
			}
			d.f.Close()
			d.cur++
			if err := d.open(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		d.line++
		d.ordinal++
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 || record.IsHeader(line) {
			continue
		}
		docID, text, perr := d.parser.Parse(d.format, line, d.ordinal)
		if perr == nil {
			d.canon = record.CanonicalID(d.canon[:0], docID)
			if bytes.Equal(d.canon, d.want) {
				return text, nil
			}
		} else if d.bad == nil {
			d.bad = record.Errorf(d.pos(), "%v", perr)
		}
		d.passed++
	}
}
