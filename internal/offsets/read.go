package offsets

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// Index is what an offsets file says of the documents a run wants: their
// places, by input and offset, and the file's headers.
type Index struct {
	// Name names the file.
	Name string
	// Headers are the file's header lines: shingle's, then its own.
	Headers []stream.HeaderAt
	sizes   []int64
	places  []Place
}

// Load reads the offsets file name and keeps the places of the documents
// whose ids want wants. It holds those places only (48 bytes each).
func Load(name string, want func(id []byte) bool) (*Index, error) {
	ix := &Index{Name: name}
	src := stream.NewLines([]string{name})
	defer src.Close()
	for {
		c, err := src.Next()
		if err != nil {
			return nil, err
		}
		if c == nil {
			break
		}
		var r stream.Result
		took := 0 // of r.Headers
		headers := func() error {
			for _, h := range r.Headers[took:] {
				ix.Headers = append(ix.Headers, h)
				if h.Header.Stage == Stage {
					if ix.sizes, err = parseSizes(h.Header, h.Pos); err != nil {
						return err
					}
				}
			}
			took = len(r.Headers)
			return nil
		}
		c.Lines(&r, false, func(line []byte, _ int64) error {
			if err := headers(); err != nil {
				return err
			}
			if ix.sizes == nil {
				return record.Bad("an offsets record before the offsets header: is this a file of shingle --offsets?")
			}
			id, p, err := Parse(line)
			if err != nil {
				return err
			}
			if p.Input > len(ix.sizes) {
				return record.Bad("input %d: the header names %d", p.Input, len(ix.sizes))
			}
			if want(id) {
				ix.places = append(ix.places, p)
			}
			return nil
		})
		c.Release()
		if r.Err == nil {
			r.Err = headers()
		}
		if r.Err != nil {
			return nil, r.Err
		}
	}
	if ix.sizes == nil {
		return nil, fmt.Errorf("%s: no offsets header: is this a file of shingle --offsets?", name)
	}
	slices.SortFunc(ix.places, func(a, b Place) int {
		return cmp.Or(cmp.Compare(a.Input, b.Input), cmp.Compare(a.Offset, b.Offset))
	})
	return ix, nil
}

// Len returns the number of places kept.
func (ix *Index) Len() int { return len(ix.places) }

// Source returns the source of the lines of the places kept, read from
// the named inputs, which must be those shingle read, in its order, as
// reading says. It refuses inputs of other sizes, compressed ones, and
// formats not read as lines.
func (ix *Index) Source(paths []string, reading input.Reading) (stream.Source, error) {
	if err := ix.count(paths); err != nil {
		return nil, err
	}
	s := &source{ix: ix, places: ix.places}
	for i, name := range paths {
		f, format, err := open(name, reading)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.files = append(s.files, f)
		s.formats = append(s.formats, format)
		if st, err := f.Stat(); err != nil || st.Size() != ix.sizes[i] {
			s.Close()
			return nil, usagef("--offsets %s was written for input %d of %d bytes; %s is not (%s): give the documents shingle read, in its order, as they were", ix.Name, i+1, ix.sizes[i], name, sizeOf(st, err))
		}
	}
	for _, p := range ix.places {
		s.total += p.Length
	}
	return s, nil
}

// Whole returns those of the named inputs (those shingle read, in its
// order) that have no offsets: with any of them, every document is to be
// read whole, not from Source.
func (ix *Index) Whole(paths []string) ([]string, error) {
	if err := ix.count(paths); err != nil {
		return nil, err
	}
	var whole []string
	for i, n := range ix.sizes {
		if n < 0 {
			whole = append(whole, paths[i])
		}
	}
	return whole, nil
}

// count refuses paths that are not as many as the inputs of the file.
func (ix *Index) count(paths []string) error {
	if len(paths) != len(ix.sizes) {
		return usagef("--offsets %s was written for %d input(s), and --documents names %d: give the documents shingle read, in its order", ix.Name, len(ix.sizes), len(paths))
	}
	return nil
}

func sizeOf(st os.FileInfo, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%d bytes", st.Size())
}

// open opens the input name for reading at offsets, and returns its format:
// a regular file, not compressed, whose documents are read as lines.
func open(name string, reading input.Reading) (*os.File, string, error) {
	u, err := Usable(name, reading)
	if err != nil {
		return nil, "", err
	}
	if u.Why != "" {
		return nil, "", usagef("--offsets: %s is %s: its lines can't be read at their offsets", name, u.Why)
	}
	f, err := os.Open(name)
	return f, u.Format, err
}

// Use is what Usable finds of an input.
type Use struct {
	// Size is the input's size in bytes; -1 when it has no offsets.
	Size int64
	// Format is the format its documents are read in.
	Format string
	// Why, when not "", says why it has no offsets ("gzip-compressed").
	Why string
}

// Usable tells whether the documents of input name, read as reading says,
// have offsets: a regular file, not compressed, read as lines. Only a
// regular file is opened, to read its first bytes: whether it is
// compressed (nothing is decompressed), and its format; standard input
// and pipes are not read.
func Usable(name string, reading input.Reading) (Use, error) {
	if name == "-" {
		return Use{Size: -1, Why: "standard input"}, nil
	}
	if f, ok := input.Lookup(reading.Format); ok && f.Files {
		return Use{Size: -1, Format: reading.Format, Why: "read as " + reading.Format + ", not as lines"}, nil
	}
	// An input that can't be stat'ed is left to the open below, which
	// says why as reading it would.
	if size, err := input.Stat(name); err == nil && size < 0 {
		return Use{Size: -1, Why: "not a regular file"}, nil
	}
	c, err := compression(name)
	if err != nil {
		return Use{}, err
	}
	if c != "" {
		return Use{Size: -1, Why: c + "-compressed"}, nil
	}
	in, err := input.Open(name)
	if err != nil {
		return Use{}, err
	}
	defer in.Close()
	u := Use{Size: in.Size, Format: input.FileFormat(reading.Format, in)}
	switch f, ok := input.Lookup(u.Format); {
	case ok && (f.Records != nil || f.Files) || u.Format == input.FormatParquet:
		u.Why = "read as " + u.Format + ", not as lines"
	case u.Size < 0:
		u.Why = "not a regular file"
	}
	if u.Why != "" {
		u.Size = -1
	}
	return u, nil
}

// compression returns the compression of the file name by its first
// bytes (input.CompressionOf).
func compression(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var head [4]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", err
	}
	return input.CompressionOf(head[:n]), nil
}

// source reads the lines of places from files.
type source struct {
	ix      *Index
	files   []*os.File
	formats []string
	places  []Place
	// done and total count the bytes of the lines read and to read.
	done, total int64
	seq         int
	scratch     []byte
	mu          sync.Mutex
	closed      bool
}

// gap is the most bytes between two lines that are read with them rather
// than skipped by a read of their own.
const gap = 16 << 10

func (s *source) Next() (*stream.Chunk, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.places) == 0 {
		return nil, nil
	}
	// The chunk: the places of one input, up to ChunkSize bytes.
	input := s.places[0].Input
	n, size := 0, int64(0)
	for n < len(s.places) && s.places[n].Input == input && (n == 0 || size+s.places[n].Length+1 <= stream.ChunkSize) {
		size += s.places[n].Length + 1
		n++
	}
	ps := s.places[:n]
	s.places = s.places[n:]
	c := stream.NewChunk(int(size))
	name := s.files[input-1].Name()
	c.Seq, c.File, c.Format, c.Input, c.Offset = s.seq, name, s.formats[input-1], input, -1
	c.FirstLine, c.FirstOrdinal = ps[0].Line, ps[0].Ordinal
	s.seq++
	c.Places = make([]stream.LinePlace, n)
	for i := 0; i < n; {
		// A read of the lines from i to j, whose gaps are small.
		j := i + 1
		for j < n && ps[j].Offset >= ps[j-1].Offset && ps[j].Offset-(ps[j-1].Offset+ps[j-1].Length) <= gap {
			j++
		}
		// With the byte before each line and the two after, which must
		// be a line end (or the file's ends).
		size := s.ix.sizes[input-1]
		start, end := max(ps[i].Offset-1, 0), ps[i].Offset
		for _, p := range ps[i:j] {
			if p.Offset+p.Length > size {
				c.Release()
				return nil, s.changed(name, p)
			}
			end = max(end, min(p.Offset+p.Length+2, size))
		}
		s.scratch = slices.Grow(s.scratch[:0], int(end-start))[:end-start]
		if k, err := s.files[input-1].ReadAt(s.scratch, start); k < len(s.scratch) {
			if err == nil || err == io.EOF {
				err = s.changed(name, ps[j-1])
			}
			c.Release()
			return nil, err
		}
		for k := i; k < j; k++ {
			p := ps[k]
			from, to := p.Offset-start, p.Offset-start+p.Length
			line := s.scratch[from:to]
			if p.Offset > 0 && s.scratch[from-1] != '\n' || !lineEnd(s.scratch[to:]) || Digest(line) != p.Digest {
				c.Release()
				return nil, s.changed(name, p)
			}
			c.Data = append(append(c.Data, line...), '\n')
			c.Places[k] = stream.LinePlace{Line: p.Line, Ordinal: p.Ordinal}
			s.done += p.Length
		}
		i = j
	}
	return c, nil
}

// lineEnd tells whether after is what follows a line, up to two bytes of
// it: nothing (the file's end), a line end, or a CR the line was read
// without (Chunk.Lines), followed by one or by the file's end.
func lineEnd(after []byte) bool {
	switch {
	case len(after) == 0 || after[0] == '\n':
		return true
	case after[0] == '\r':
		return len(after) == 1 || after[1] == '\n'
	}
	return false
}

// changed is the error of a line that is not the one place p describes.
func (s *source) changed(name string, p Place) error {
	return &record.Error{Pos: record.Pos{File: name, Line: p.Line},
		Msg: fmt.Sprintf("not the line --offsets %s describes (%d bytes at offset %d, digest %016x): the documents have changed since shingle read them; run shingle again, or verify without --offsets", s.ix.Name, p.Length, p.Offset, p.Digest)}
}

func (s *source) Progress() (int64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done, s.total
}

func (s *source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []string
	for _, f := range s.files {
		if err := f.Close(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	s.files = nil
	if errs != nil {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
