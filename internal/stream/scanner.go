package stream

import (
	"bytes"

	"github.com/neardup/neardup/internal/record"
)

// Scanner reads record lines one at a time from a source, for stages that
// work through their input in order (pairs, cluster). Header lines go to
// OnHeader.
type Scanner struct {
	src      Source
	chunk    *Chunk
	data     []byte
	line     []byte
	pos      record.Pos
	err      error
	OnHeader func(h record.Header, pos record.Pos) error
}

// NewScanner returns a Scanner over src.
func NewScanner(src Source) *Scanner { return &Scanner{src: src} }

// Scan advances to the next record line. It returns false at the end of the
// input or on an error (see Err).
func (s *Scanner) Scan() bool {
	for s.err == nil {
		if len(s.data) == 0 {
			if s.chunk != nil {
				s.chunk.Release()
				s.chunk = nil
			}
			c, err := s.src.Next()
			if err != nil {
				s.err = err
				return false
			}
			if c == nil {
				return false
			}
			s.chunk, s.data = c, c.Data
			s.pos = record.Pos{File: c.File, Line: c.FirstLine - 1}
		}
		i := bytes.IndexByte(s.data, '\n')
		line := s.data[:i]
		s.data = s.data[i+1:]
		s.pos.Line++
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if record.IsHeader(line) {
			h, err := record.ParseHeader(line)
			if err != nil {
				s.err = &record.Error{Pos: s.pos, Msg: err.Error()}
				return false
			}
			if s.OnHeader != nil {
				if err := s.OnHeader(h, s.pos); err != nil {
					s.err = err
					return false
				}
			}
			continue
		}
		s.line = line
		return true
	}
	return false
}

// Line returns the current line without its line end. It is valid until the
// next call to Scan.
func (s *Scanner) Line() []byte { return s.line }

// Pos returns the place of the current line.
func (s *Scanner) Pos() record.Pos { return s.pos }

// Err returns the error that stopped the scanner, if any.
func (s *Scanner) Err() error { return s.err }

// Close releases the source.
func (s *Scanner) Close() error {
	if s.chunk != nil {
		s.chunk.Release()
		s.chunk = nil
	}
	return s.src.Close()
}
