// Package offsets keeps where each document's line is in its input: shingle
// --offsets FILE writes a record for each document it reads, and verify
// --documents --offsets FILE reads only the lines of the documents its pairs
// name, where the records put them, instead of every document.
//
// A record is
//
//	id TAB input TAB line TAB ordinal TAB offset TAB length TAB digest
//
// the document's id, as the shingle records carry it; the number of its
// input among shingle's inputs, from 1; its line number in that input and
// its ordinal across them all (the line numbers and arrival numbers the
// stages give); the byte offset of its line in the input and its length
// in bytes, without the line end; and the digest of those bytes (Digest),
// in 16 hex digits. The records follow shingle's header and the file's own,
// "#neardup stage=offsets sizes=S1,S2,...", the inputs' sizes in bytes.
// verify refuses inputs of other sizes, and a line that is not the one a
// record describes (its length, its ends, and a line end on each side): the
// documents have changed since shingle read them.
//
// Only documents read as lines have offsets (TSV, JSON Lines, --lines),
// from regular files that are not compressed: a compressed line has no
// byte offset to read it from. The header gives any other input the size
// -1, and it has no records: verify --offsets then reads every document
// whole, as without the file.
package offsets

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
)

// Stage is the stage name of the file's own header.
const Stage = "offsets"

// sizesKey is the header's key of the inputs' sizes.
const sizesKey = "sizes"

// Place is where a document's line is.
type Place struct {
	// Input numbers the input, from 1.
	Input int
	// Line and Ordinal are the line's number in its input and across all
	// inputs.
	Line, Ordinal int64
	// Offset and Length say where the line's bytes are in the input,
	// without the line end; Digest is their Digest.
	Offset, Length int64
	Digest         uint64
}

// Append appends the record of the document id, whose line, without its
// line end, is line, of chunk c and ordinal ordinal. It fails when the
// chunk has no byte offsets: an input that is compressed, or not a
// regular file.
func Append(dst, id []byte, c *stream.Chunk, line []byte, ordinal int64) ([]byte, error) {
	if c.Offset < 0 {
		return dst, fmt.Errorf("--offsets: %s is compressed, or not a regular file: its lines have no byte offsets to read them again from (give it uncompressed, as a file)", c.File)
	}
	// line is a part of c.Data: its start is where their capacities
	// differ.
	start := c.Offset + int64(cap(c.Data)-cap(line))
	lineNo := c.FirstLine + (ordinal - c.FirstOrdinal)
	dst = append(dst, id...)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(c.Input), 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, lineNo, 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, ordinal, 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, start, 10)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(len(line)), 10)
	dst = append(dst, '\t')
	dst = record.AppendHex64(dst, Digest(line))
	return append(dst, '\n'), nil
}

// ends is the bytes at each end of a line that its digest is of.
const ends = 32

// Digest is the XXH64 of a line of at most 2·ends bytes, else of its first
// ends bytes and its last: what tells a line from another, with its length
// and its place between two line ends, for the cost of a few bytes a
// document (the XXH64 of every line cost shingle a twentieth of its time).
func Digest(line []byte) uint64 {
	if len(line) <= 2*ends {
		return xxhash.Sum64(line)
	}
	var b [2 * ends]byte
	copy(b[:ends], line)
	copy(b[ends:], line[len(line)-ends:])
	return xxhash.Sum64(b[:])
}

// parseInt is strconv.ParseInt of f in base 10, without its conversion to
// a string for the numbers of up to 18 digits that records hold.
func parseInt(f []byte) (int64, error) {
	if len(f) == 0 || len(f) > 18 {
		return strconv.ParseInt(string(f), 10, 64)
	}
	v := int64(0)
	for _, c := range f {
		if c < '0' || c > '9' {
			return strconv.ParseInt(string(f), 10, 64)
		}
		v = 10*v + int64(c-'0')
	}
	return v, nil
}

// Parse parses a record's line, without its line end, into the document's
// id and its place.
func Parse(line []byte) (id []byte, p Place, err error) {
	id, rest, ok := record.Cut(line)
	if !ok || len(id) == 0 {
		return nil, p, record.Bad("want id TAB input TAB line TAB ordinal TAB offset TAB length TAB digest")
	}
	var n [5]int64
	names := []string{"input", "line", "ordinal", "offset", "length", "digest"}
	for i, name := range names[:5] {
		var f []byte
		// Each number is followed by a TAB and the next field.
		if f, rest, ok = record.Cut(rest); !ok {
			return nil, p, record.Bad("want id TAB input TAB line TAB ordinal TAB offset TAB length TAB digest: no %s", names[i+1])
		}
		least := int64(0) // an offset or a length
		if i < 3 {
			least = 1 // an input, a line or an ordinal
		}
		v, err := parseInt(f)
		if err != nil || v < least {
			return nil, p, record.Bad("%s %q: want a number of at least %d", name, f, least)
		}
		n[i] = v
	}
	digest, ok := record.ParseHex64(rest)
	if !ok {
		return nil, p, record.Bad("digest %q: want 16 hex digits", rest)
	}
	if n[0] > 1<<30 {
		return nil, p, record.Bad("input %d: too large", n[0])
	}
	if n[3] > 1<<62-n[4] {
		return nil, p, record.Bad("offset %d and length %d: past any file", n[3], n[4])
	}
	return id, Place{Input: int(n[0]), Line: n[1], Ordinal: n[2], Offset: n[3], Length: n[4], Digest: digest}, nil
}

// Header returns the file's own header for inputs of sizes.
func Header(sizes []int64) record.Header {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = strconv.FormatInt(n, 10)
	}
	return record.NewHeader(Stage, sizesKey, strings.Join(s, ","))
}

// parseSizes parses the sizes of the header h read at pos.
func parseSizes(h record.Header, pos record.Pos) ([]int64, error) {
	v, ok := h.Get(sizesKey)
	if !ok {
		return nil, record.Errorf(pos, "the offsets header has no %s=", sizesKey)
	}
	var sizes []int64
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < -1 {
			return nil, record.Errorf(pos, "the offsets header's %s=%s: want sizes in bytes separated by commas", sizesKey, v)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// usagef is a usage error: the files given do not go together.
func usagef(format string, a ...any) error { return status.Usagef(format, a...) }

// Writer writes an offsets file: its records go to a new file beside it,
// put in its place by Commit (disk.Create), so that a run that fails or is
// killed leaves the file as it was.
type Writer struct {
	f *disk.File
	w *record.Writer
	// Has says which inputs have offsets, by number from 1 (Has[0] is
	// input 1); the others are -1 in the header, and verify --offsets
	// reads every document whole.
	Has []bool
	// Without names each input without offsets and says why
	// ("a.jsonl.gz (gzip-compressed)").
	Without []string
}

// Create starts the offsets file name of the named inputs, read as reading
// says, under the headers upstream (shingle's). An input without offsets
// (Usable) has none in the file, and the size -1 in its header.
func Create(name string, inputs []string, reading input.Reading, upstream ...record.Header) (*Writer, error) {
	sizes := make([]int64, len(inputs))
	w := &Writer{Has: make([]bool, len(inputs))}
	for i, in := range inputs {
		u, err := Usable(in, reading)
		if err != nil {
			return nil, err
		}
		sizes[i], w.Has[i] = u.Size, u.Why == ""
		if u.Why != "" {
			w.Without = append(w.Without, fmt.Sprintf("%s (%s)", in, u.Why))
		}
	}
	f, err := disk.Create(disk.OS{}, disk.Target{Name: name, Mode: 0o644, InPlace: true})
	if err != nil {
		return nil, err
	}
	own := append(upstream[:len(upstream):len(upstream)], Header(sizes))
	w.f, w.w = f, record.NewWriter(f, false, false, own...)
	return w, nil
}

// Write writes records (stream.Output.Places).
func (w *Writer) Write(b []byte) (int, error) {
	w.w.Touch()
	return w.w.Write(b)
}

// Commit writes what is buffered and puts the file in place.
func (w *Writer) Commit() error {
	w.w.Touch() // the headers, also of a file without records
	if err := w.w.Close(); err != nil {
		w.f.Abort()
		return err
	}
	return w.f.Commit()
}

// Abort removes the new file: the old one, if any, stays.
func (w *Writer) Abort() { w.f.Abort() }
