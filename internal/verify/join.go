package verify

import (
	"bytes"
	"sync"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
)

// The join modes (Attach, Sorted) hold neither the pairs nor the shingle
// or sketch file: both are read in the order of their first field, the way
// join(1) reads two sorted files.
//
//	verify --attach: pairs sorted by their first id, and the records sorted
//	by id, give attached pairs "idB TAB idA TAB size TAB values" (record
//	package): each pair carrying its first document's set, keyed by the
//	other id;
//	sort by the first field;
//	verify --sorted: attached pairs sorted by their first field, and the
//	same records, give the scored pairs that Run gives, in the order of idB.
//
// A joinSource cuts the main input into pieces of whole lines and hands each
// out with the side records its lines name: the reading and the order checks
// are sequential, the parsing and scoring are the workers'.

// pieceBytes bounds the lines plus side records of one piece (a piece holds
// at least one line and its side record, whatever their size), and with
// copies its output. A chunk of the input (stream.ChunkSize) and the side
// records of its keys mostly fit in one piece.
var pieceBytes = 2 * stream.ChunkSize

// sideRecords are the records of the sorted file that a piece's lines name,
// ascending by id, with their places. A record is the whole line.
type sideRecords struct {
	ids   [][]byte
	lines [][]byte
	pos   []record.Pos
	// headers are header lines of the sorted file met while reading
	// for this piece (an id that sorts before '#' puts them after it).
	headers []stream.HeaderAt
}

// find returns the index of id among the records, starting the search at
// from (the lines of a piece come in key order).
func (s *sideRecords) find(id []byte, from int) (int, bool) {
	for from < len(s.ids) && bytes.Compare(s.ids[from], id) < 0 {
		from++
	}
	return from, from < len(s.ids) && bytes.Equal(s.ids[from], id)
}

// sideReader reads a file sorted by id, checking the order.
type sideReader struct {
	name    string
	src     *stream.Lines
	sc      *stream.Scanner
	have    bool // sc holds a record not yet passed
	id      []byte
	line    []byte
	pos     record.Pos
	prevID  []byte
	prevPos record.Pos
	started bool
	headers []stream.HeaderAt
}

func newSideReader(name string) *sideReader {
	s := &sideReader{name: name, src: stream.NewLines([]string{name})}
	s.sc = stream.NewScanner(s.src)
	s.sc.OnHeader = func(h record.Header, pos record.Pos) error {
		s.headers = append(s.headers, stream.HeaderAt{Header: h, Pos: pos})
		return nil
	}
	return s
}

// next reads the next record and checks its order. It returns false at the
// end of the file.
func (s *sideReader) next() (bool, error) {
	if !s.sc.Scan() {
		return false, s.sc.Err()
	}
	s.line, s.pos = s.sc.Line(), s.sc.Pos()
	s.id = record.Key(s.line)
	if s.started {
		switch c := bytes.Compare(s.id, s.prevID); {
		case c == 0:
			return false, record.Errorf(s.pos, "id %s appears more than once (also at line %d)", s.id, s.prevPos.Line)
		case c < 0:
			return false, record.Errorf(s.pos, "id %s comes after %s (line %d): the file must be sorted by id (LC_ALL=C sort -t$'\\t' -k1,1)", s.id, s.prevID, s.prevPos.Line)
		}
	}
	s.started = true
	s.prevID = append(s.prevID[:0], s.id...)
	s.prevPos = s.pos
	return true, nil
}

// seek advances to the record of id. It returns that record's line (valid
// until the next call) and place, or ok false when the file has none. The
// ids asked for must not decrease.
func (s *sideReader) seek(id []byte) (line []byte, pos record.Pos, ok bool, err error) {
	for {
		if !s.have {
			if s.have, err = s.next(); !s.have {
				return nil, record.Pos{}, false, err
			}
		}
		switch c := bytes.Compare(s.id, id); {
		case c < 0:
			s.have = false
		case c == 0:
			return s.line, s.pos, true, nil
		default:
			return nil, record.Pos{}, false, nil
		}
	}
}

// drain reads the rest of the file, checking its order: an id out of order
// after the last one asked for would have hidden a record asked for
// earlier (reported then as missing).
func (s *sideReader) drain() error {
	for {
		if ok, err := s.next(); !ok {
			return err
		}
	}
}

// takeHeaders returns the header lines read since the last call.
func (s *sideReader) takeHeaders() []stream.HeaderAt {
	h := s.headers
	s.headers = nil
	return h
}

// joinSource is the stream.Source of the join modes: pieces of the main
// input, sorted by their first field, each with its side records.
type joinSource struct {
	main *stream.Lines
	side *sideReader
	// order is the message for main input out of order.
	order string
	// copies says that each line's output carries its side record (attach):
	// the record's size then counts once per line against the piece's
	// bytes, which bound its output too.
	copies bool

	cur     *stream.Chunk
	rest    []byte // lines of cur not yet handed out
	line    int64  // number of rest's first line
	ordinal int64
	seq     int
	done    bool // the main input has ended

	prevKey []byte
	prevPos record.Pos
	started bool // prevKey is set
	// last is the side record of prevKey, if found, for a piece that
	// begins with the key the one before it ended with.
	last    []byte
	lastID  []byte
	lastPos record.Pos

	mu     sync.Mutex
	closed bool
}

// Next returns the next piece with its side records, or nil at the end.
func (j *joinSource) Next() (*stream.Chunk, error) {
	j.mu.Lock()
	closed := j.closed
	j.mu.Unlock()
	if closed {
		return nil, nil
	}
	for len(j.rest) == 0 {
		if j.done {
			return nil, nil
		}
		c, err := j.main.Next()
		if err != nil {
			return nil, err
		}
		if c == nil {
			return j.finish()
		}
		j.cur, j.rest, j.line, j.ordinal = c, c.Data, c.FirstLine, c.FirstOrdinal
	}
	side := &sideRecords{}
	piece := &stream.Chunk{Seq: j.seq, File: j.cur.File, FirstLine: j.line, FirstOrdinal: j.ordinal, Value: side}
	j.seq++
	size, n := 0, 0
	var pieceKey []byte
	inKey := false // pieceKey is set
	copied := 0    // bytes each line of pieceKey copies into the output
	for n < len(j.rest) && size < pieceBytes {
		i := bytes.IndexByte(j.rest[n:], '\n')
		line := record.TrimEOL(j.rest[n : n+i+1])
		pos := record.Pos{File: j.cur.File, Line: j.line}
		n += i + 1
		size += i + 1
		j.line++
		j.ordinal++
		if record.IsHeader(line) {
			continue
		}
		key := record.Key(line)
		if inKey && bytes.Equal(key, pieceKey) {
			size += copied
			continue
		}
		copied = 0
		if j.started {
			switch c := bytes.Compare(key, j.prevKey); {
			case c < 0:
				return nil, record.Errorf(pos, j.order, key, j.prevKey, j.prevPos.Line)
			case c == 0:
				// The piece begins with the key the last one ended with.
				if j.last != nil {
					side.add(j.lastID, j.last, j.lastPos)
					size += len(j.last)
					if j.copies {
						copied = len(j.last)
					}
				}
				pieceKey, inKey = key, true
				size += copied
				continue
			}
		}
		j.prevKey = append(j.prevKey[:0], key...)
		j.prevPos = pos
		j.started = true
		pieceKey, inKey = key, true
		rec, rpos, ok, err := j.side.seek(key)
		if err != nil {
			return nil, err
		}
		j.last = nil
		if ok {
			// The copy outlives the side reader's buffer; pieces only
			// read it, so the next piece may share it.
			j.last = append([]byte(nil), rec...)
			j.lastID = record.Key(j.last)
			j.lastPos = rpos
			side.add(j.lastID, j.last, rpos)
			size += len(rec)
			if j.copies {
				copied = len(rec)
			}
		}
		size += copied
	}
	if n == len(j.cur.Data) {
		// The piece is the whole chunk: hand the chunk itself out, so
		// that its buffer goes back to the pool.
		j.cur.Seq, j.cur.Value = piece.Seq, side
		piece = j.cur
	} else {
		// The pieces of a chunk share its buffer, which is left to the
		// garbage collector rather than returned to the pool.
		piece.Data = j.rest[:n]
	}
	j.rest = j.rest[n:]
	side.headers = j.side.takeHeaders()
	return piece, nil
}

// finish ends the join: the rest of the sorted file is read for its order
// (unless there were no pairs at all), and its last header lines, if any,
// go out with an empty piece.
func (j *joinSource) finish() (*stream.Chunk, error) {
	j.done = true
	if !j.started {
		return nil, nil
	}
	if err := j.side.drain(); err != nil {
		return nil, err
	}
	hs := j.side.takeHeaders()
	if len(hs) == 0 {
		return nil, nil
	}
	return &stream.Chunk{Seq: j.seq, Value: &sideRecords{headers: hs}}, nil
}

func (s *sideRecords) add(id, line []byte, pos record.Pos) {
	s.ids = append(s.ids, id)
	s.lines = append(s.lines, line)
	s.pos = append(s.pos, pos)
}

// Progress reports on the main input.
func (j *joinSource) Progress() (int64, int64) { return j.main.Progress() }

// Close ends the reading of both inputs; it may come while Next runs in the
// pool's reader.
func (j *joinSource) Close() error {
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	err := j.main.Close()
	if serr := j.side.src.Close(); err == nil {
		err = serr
	}
	return err
}
