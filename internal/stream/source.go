package stream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"runtime/debug"
	"sync"

	"github.com/neardup/neardup/internal/input"
	"github.com/neardup/neardup/internal/record"
)

// ChunkSize is the size a reader aims for when it cuts chunks. A read that
// returns less (a pipe holding a few lines) is passed on at once, so a slow
// stream is answered line by line.
const ChunkSize = 1 << 20

// DefaultMaxLine is the default of MaxLine: 1 GiB.
const DefaultMaxLine = 1 << 30

// MaxLine is the one limit of the pipeline: the longest line, in bytes
// before its newline, that a stage reads (a document line, a record), the
// largest document read whole (--files, after decompression), and so the
// longest record a stage may write (shingle refuses a document whose
// record would be longer), so that every stage reads what the one before
// it wrote. Tests lower it (cli reads NEARDUP_MAX_LINE).
var MaxLine = DefaultMaxLine

// SetMaxLine sets MaxLine, and with it the bound of a record of input as
// decoded, input.MaxRecord (a WARC record, an HTTP body).
func SetMaxLine(n int) {
	MaxLine = n
	input.MaxRecord = n
}

// Source yields chunks in input order; Next returns nil, nil at the end.
type Source interface {
	Next() (*Chunk, error)
	// Progress reports the bytes of stored input consumed so far and the
	// total when it is known (else -1).
	Progress() (done, total int64)
	Close() error
}

// bufList is a free list of buffers. Unlike a sync.Pool it keeps its
// buffers across garbage collections: with a bounded number of chunks in
// flight it never holds more than that many.
type bufList struct {
	mu   sync.Mutex
	bufs []*[]byte
}

// Input chunks and output buffers are kept apart, so that each list holds
// buffers of about the same size (outputs grow to what the stage writes per
// chunk).
var inPool, outPool bufList

// maxPooled is the largest buffer kept for reuse: the buffers of rare huge
// lines are let go; maxListed bounds the number of buffers kept.
const (
	maxPooled = 16 * ChunkSize
	maxListed = 64
)

func getBuf(l *bufList, n int) *[]byte {
	l.mu.Lock()
	var p *[]byte
	if k := len(l.bufs); k > 0 {
		p = l.bufs[k-1]
		l.bufs = l.bufs[:k-1]
	}
	l.mu.Unlock()
	if p == nil || cap(*p) < n {
		b := make([]byte, 0, max(n, ChunkSize))
		p = &b
	}
	*p = (*p)[:0]
	return p
}

func putBuf(l *bufList, p *[]byte) {
	if p == nil || cap(*p) > maxPooled {
		return
	}
	l.mu.Lock()
	if len(l.bufs) < maxListed {
		l.bufs = append(l.bufs, p)
	}
	l.mu.Unlock()
}

// Lines reads the named inputs ("-" is standard input) one after another and
// cuts them into chunks of whole lines.
type Lines struct {
	names []string
	// MaxLine bounds the memory one line takes: a line is refused once
	// more than MaxLine bytes of it have been read without its end.
	MaxLine int
	// Reading, set by a stage that reads documents, says how: its Format,
	// or under input.FormatAuto each input's own (input.FileFormat), says
	// whether an input is cut into lines or read as records
	// (input.Format.Records, into chunks of Docs). Stored asks record
	// readers for the records as stored (keep copies them). Without it
	// every input is lines.
	Reading *input.Reading
	Stored  bool
	// open opens an input; tests replace it to control the reads.
	open func(name string) (*input.File, error)

	format  string             // of cur
	records input.RecordReader // of cur, when its format is read as records
	readers []input.RecordReader

	cur      *input.File
	nextName int
	line     int64 // number of the next line of cur
	offset   int64 // where the next chunk of cur starts in it, or -1
	ordinal  int64 // number of the next line across inputs
	carry    []byte
	eof      bool
	seq      int
	done     int64 // consumed bytes of closed files
	total    int64
	peeked   []*Chunk
	firstPos record.Pos // where Peek found the first record

	mu      sync.Mutex // guards cur, done, reading and closed
	reading bool       // a call of next is under way
	closed  bool
}

// NewLines returns a source over the named inputs, or standard input when
// there are none.
func NewLines(names []string) *Lines {
	if len(names) == 0 {
		names = []string{"-"}
	}
	l := &Lines{names: names, MaxLine: MaxLine, open: input.Open, ordinal: 1}
	l.total = TotalSize(names)
	return l
}

// NewLinesOpen returns a source over the named inputs that opens each with
// open instead of input.Open (another file system: the Beam pipeline reads
// object stores).
func NewLinesOpen(names []string, open func(name string) (*input.File, error)) *Lines {
	l := NewLines(names)
	l.open = open
	return l
}

// TotalSize sums the sizes of regular files among names, or returns -1 when
// one of them is not a regular file.
func TotalSize(names []string) int64 {
	var total int64
	for _, n := range names {
		f, err := input.Stat(n)
		if err != nil || f < 0 {
			return -1
		}
		total += f
	}
	return total
}

func (l *Lines) openNext() error {
	for l.cur == nil {
		if l.nextName >= len(l.names) {
			return io.EOF
		}
		f, err := l.open(l.names[l.nextName])
		l.nextName++
		if err != nil {
			return err
		}
		l.format, l.records = "", nil
		if l.Reading != nil {
			l.format = input.FileFormat(l.Reading.Format, f)
		}
		if ff, ok := input.Lookup(l.format); ok && ff.Records != nil {
			rr, err := ff.Records(f, *l.Reading, l.Stored)
			if err != nil {
				f.Close()
				return err
			}
			l.records = rr
			l.readers = append(l.readers, rr)
		}
		l.mu.Lock()
		l.cur = f
		l.mu.Unlock()
		l.line = 1
		l.offset = 0
		if f.Compression != "" || f.Size < 0 {
			l.offset = -1
		}
		l.eof = false
		l.carry = l.carry[:0]
	}
	return nil
}

func (l *Lines) closeCur() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return nil
	}
	l.done += l.cur.Consumed()
	err := l.cur.Close()
	l.cur = nil
	return err
}

// Next returns the next chunk of whole lines. It may run in another
// goroutine than Close; after Close it returns nil.
func (l *Lines) Next() (*Chunk, error) {
	if len(l.peeked) > 0 {
		c := l.peeked[0]
		l.peeked = l.peeked[1:]
		return c, nil
	}
	return l.next()
}

// Peek reads ahead until it has seen the first record line (or the end of
// the input) and returns the header lines before it and that line, without
// consuming anything: Next returns the same chunks afterwards. It lets a
// stage set itself up from its input's parameters.
func (l *Lines) Peek() (headers []HeaderAt, first []byte, err error) {
	for i := 0; ; i++ {
		if i == len(l.peeked) {
			c, err := l.next()
			if err != nil || c == nil {
				return headers, nil, err
			}
			l.peeked = append(l.peeked, c)
		}
		c := l.peeked[i]
		data, lineNo := c.Data, c.FirstLine
		for len(data) > 0 {
			j := bytes.IndexByte(data, '\n')
			line := record.TrimEOL(data[:j+1])
			data = data[j+1:]
			if !record.IsHeader(line) {
				l.firstPos = record.Pos{File: c.File, Line: lineNo}
				return headers, line, nil
			}
			h, err := record.ParseHeader(line)
			if err != nil {
				return headers, nil, &record.Error{Pos: record.Pos{File: c.File, Line: lineNo}, Msg: err.Error()}
			}
			headers = append(headers, HeaderAt{h, record.Pos{File: c.File, Line: lineNo}})
			lineNo++
		}
	}
}

// FirstPos returns the place of the record line Peek returned.
func (l *Lines) FirstPos() record.Pos { return l.firstPos }

func (l *Lines) next() (*Chunk, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, nil
	}
	l.reading = true
	l.mu.Unlock()
	defer l.doneReading()
	for {
		if err := l.openNext(); err == io.EOF {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		c, err := l.read()
		if err != nil {
			return nil, err
		}
		if c != nil {
			return c, nil
		}
		if err := l.closeCur(); err != nil {
			return nil, err
		}
	}
}

// hugeLine is the buffer size past which a line's start is held in blocks
// of this size rather than in one buffer doubled again and again. Tests
// lower it.
var hugeLine = 64 << 20

// read returns the next chunk of the current file, or nil at its end.
//
// The buffer holds the start of one line (carried over from the last
// chunk) and never a newline until read returns, so a read that would let
// that line pass MaxLine bytes and its newline is never asked for: every
// line of a chunk is at most MaxLine bytes. Up to hugeLine the buffer
// doubles; past it the line's start is kept in blocks of hugeLine bytes,
// joined in one buffer once its newline is found. Refusing a longer line
// holds MaxLine bytes (and the garbage of the doubling, up to 2·hugeLine);
// reading one up to the limit holds it twice while the blocks are joined.
func (l *Lines) read() (*Chunk, error) {
	if l.records != nil {
		return l.readRecords()
	}
	limit := l.MaxLine + 1 // a whole line and its newline
	size := ChunkSize
	if len(l.carry) >= size/2 {
		size = 2 * len(l.carry)
	}
	p := getBuf(&inPool, min(size, limit))
	buf := append(*p, l.carry...)
	l.carry = l.carry[:0]
	if cap(l.carry) > maxPooled {
		l.carry = nil // the tail of a rare huge line
	}
	var blocks [][]byte // the line's start, past hugeLine
	held := 0           // bytes in blocks
	for {
		// blocks and buf hold the start of one line, l.line, and not its
		// end.
		if held+len(buf) > l.MaxLine {
			putBuf(&inPool, p)
			return nil, &record.Error{Pos: record.Pos{File: l.cur.Name, Line: l.line},
				Msg: fmt.Sprintf("line exceeds %d bytes", l.MaxLine)}
		}
		if l.eof {
			if held+len(buf) == 0 {
				putBuf(&inPool, p)
				return nil, nil
			}
			buf = append(join(blocks, held, buf, 1), '\n')
			return l.chunk(p, buf), nil
		}
		if len(buf) == cap(buf) {
			if cap(buf) >= hugeLine {
				blocks = append(blocks, buf)
				held += len(buf)
				buf = make([]byte, 0, min(hugeLine, limit-held))
			} else {
				nb := make([]byte, len(buf), min(2*cap(buf), limit))
				copy(nb, buf)
				buf = nb
			}
		}
		start := len(buf)
		n, err := l.cur.Read(buf[start:min(cap(buf), limit-held)])
		buf = buf[:start+n]
		if err == io.EOF {
			l.eof = true
		} else if err != nil {
			putBuf(&inPool, p)
			return nil, err
		}
		if n == 0 {
			continue
		}
		if i := lastNewline(buf[start:]); i >= 0 {
			end := held + start + i + 1
			buf = join(blocks, held, buf, 1)
			blocks, held = nil, 0
			if end == len(buf) || l.eof {
				if l.eof && end < len(buf) {
					buf = append(buf, '\n')
				}
				return l.chunk(p, buf), nil
			}
			l.carry = append(l.carry, buf[end:]...)
			return l.chunk(p, buf[:end]), nil
		}
	}
}

// join returns the blocks, of held bytes, and buf in one buffer, with room
// for extra bytes more. Without blocks it is buf.
func join(blocks [][]byte, held int, buf []byte, extra int) []byte {
	if blocks == nil {
		return buf
	}
	all := make([]byte, 0, held+len(buf)+extra)
	for _, b := range blocks {
		all = append(all, b...)
	}
	all = append(all, buf...)
	// The blocks are garbage: give them back now, or they stay resident
	// beside the line until the heap grows enough for a collection.
	clear(blocks)
	debug.FreeOSMemory()
	return all
}

// maxRecordsPerChunk bounds the number of small records in one chunk.
const maxRecordsPerChunk = 1000

// readRecords returns the next chunk of records of the current file, or
// nil at its end.
func (l *Lines) readRecords() (*Chunk, error) {
	if l.eof {
		return nil, nil
	}
	p := getBuf(&inPool, ChunkSize)
	buf := *p
	c := &Chunk{Seq: l.seq, File: l.cur.Name, Format: l.format, FirstOrdinal: l.ordinal, Input: l.nextName, Offset: -1, buf: p}
	for len(buf) < ChunkSize && len(c.Docs) < maxRecordsPerChunk {
		rec, b, err := l.records.Next(buf)
		buf = b
		if err == io.EOF {
			l.eof = true
			break
		}
		if err != nil {
			*p = buf
			c.Release()
			return nil, err
		}
		c.Docs = append(c.Docs, FileDoc{Name: l.cur.Name, Data: rec.Data, Record: &rec})
		if rec.Kind == input.RecordDocument {
			l.ordinal++
		}
	}
	*p = buf
	if len(c.Docs) == 0 {
		putBuf(&inPool, p)
		return nil, nil
	}
	l.seq++
	return c, nil
}

// Report writes on stderr, as stage, what the record readers passed over.
// Call it once the source is read.
func (l *Lines) Report(stderr io.Writer, stage string) {
	for _, r := range l.readers {
		r.Report(stderr, stage)
	}
}

func (l *Lines) chunk(p *[]byte, data []byte) *Chunk {
	*p = data
	c := &Chunk{Seq: l.seq, File: l.cur.Name, Format: l.format, FirstLine: l.line, FirstOrdinal: l.ordinal, Data: data,
		Input: l.nextName, Offset: l.offset, buf: p}
	l.seq++
	if l.offset >= 0 {
		l.offset += int64(len(data))
	}
	n := int64(bytes.Count(data, []byte{'\n'}))
	l.line += n
	l.ordinal += n
	return c
}

// Progress reports the stored bytes consumed and the total, if known.
func (l *Lines) Progress() (int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	done := l.done
	if l.cur != nil {
		done += l.cur.Consumed()
	}
	return done, l.total
}

// doneReading ends a call of next, and closes the input if Close was
// called meanwhile.
func (l *Lines) doneReading() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reading = false
	if l.closed && l.cur != nil {
		l.cur.Close()
		l.cur = nil
	}
}

// Close closes the current input and ends the reading. Run returns
// on an error without waiting for a read that may be blocked on a slow
// input, so Close may come while Next is under way in Run's reader: the
// input is then closed when that read returns.
func (l *Lines) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.reading || l.cur == nil {
		return nil
	}
	l.done += l.cur.Consumed()
	err := l.cur.Close()
	l.cur = nil
	return err
}

// NewChunk returns a chunk whose Data, empty, has room for n bytes, from
// the buffers Release gives back: a source of its own fills it (within
// that room) and sets the rest.
func NewChunk(n int) *Chunk {
	p := getBuf(&inPool, n)
	return &Chunk{Data: *p, buf: p}
}

// Release returns a chunk's buffer for reuse; the chunk must not be used
// afterwards.
func (c *Chunk) Release() {
	if r, ok := c.Value.(interface{ Release() }); ok {
		r.Release() // a Parquet row group lets go of its file
	}
	putBuf(&inPool, c.buf)
	c.buf = nil
	c.Data = nil
	c.Docs = nil
	c.Value = nil
}

// lastNewline is bytes.LastIndexByte(b, '\n'), eight bytes at a time: the
// standard library's goes a byte at a time, and a read that ends in a long
// line (a document of megabytes, a record of thousands of hashes) is gone
// through back to its start.
func lastNewline(b []byte) int {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	i := len(b)
	for ; i >= 8; i -= 8 {
		x := binary.LittleEndian.Uint64(b[i-8:]) ^ '\n'*ones
		// The high bit of each byte of x that is 0 (a newline), and of no
		// other: no carry crosses from one byte to the next.
		if z := ^((x&lows + lows) | x) & highs; z != 0 {
			return i - 8 + (63-bits.LeadingZeros64(z))/8
		}
	}
	for i--; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}
