package input

import (
	"bufio"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/neardup/neardup/internal/record"
)

// FormatWARC is the WARC format (ISO 28500, WARC/1.0 and 1.1): plain, or
// gzip-compressed record by record (.warc.gz, one gzip member a record).
const FormatWARC = "warc"

// WARC ids: the --id-field values that name a WARC header field. The
// default id field ("id") is WARC-Target-URI; any other value names a
// header field itself (case-insensitive).
const (
	warcTargetURI = "WARC-Target-URI"
	warcRecordID  = "WARC-Record-ID"
)

func init() {
	Register(&Format{
		Name:       FormatWARC,
		Extensions: []string{".warc"},
		Magic:      []string{"WARC/1.0\r\n", "WARC/1.1\r\n"},
		Fields:     true,
		Records:    openWARC,
		Document:   warcDocument,
	})
}

// WARCIDField returns the WARC header field an --id-field value names:
// WARC-Target-URI for the default "id" and for "uri", WARC-Record-ID for
// "record-id", else the value itself.
func WARCIDField(idField string) string {
	switch strings.ToLower(idField) {
	case DefaultIDField, "uri":
		return warcTargetURI
	case "record-id":
		return warcRecordID
	}
	return idField
}

// WARCReader reads the records of a WARC file as stored: plain, or a
// concatenation of gzip members.
type WARCReader struct {
	name   string
	br     *bufio.Reader
	off    int64 // stored bytes consumed
	gz     bool
	zr     *gzip.Reader
	stored bool
	n      int64
	// queue holds the records of a gzip member not yet returned.
	queue  []Record
	member []byte

	passed   map[string]int64 // records not documents, by type
	nonHTTP  int64
	multiple int64 // records that share a gzip member
}

func openWARC(f *File, _ Reading, stored bool) (RecordReader, error) {
	r, err := f.Stored()
	if err != nil {
		if stored {
			return nil, &record.Error{Pos: record.Pos{File: f.Name}, Msg: f.Compression + "-compressed: keep writes each WARC record as stored, so it reads plain WARC or one gzip member a record: decompress it first"}
		}
		// A zstd-compressed WARC: its records are read decompressed (their
		// byte offsets are then those of the decompressed stream).
		return NewWARCReader(f.Name, f, false), nil
	}
	return NewWARCReader(f.Name, r, stored), nil
}

// NewWARCReader returns a reader of the WARC records in r (stored: plain or
// gzip members). With stored set each record carries its bytes as stored.
func NewWARCReader(name string, r io.Reader, stored bool) *WARCReader {
	w := &WARCReader{name: name, br: bufio.NewReaderSize(r, 256<<10), stored: stored, passed: map[string]int64{}}
	if b, err := w.br.Peek(2); err == nil && b[0] == 0x1f && b[1] == 0x8b {
		w.gz = true
	}
	return w
}

func (w *WARCReader) errorf(off int64, format string, args ...any) error {
	return &record.Error{Pos: record.Pos{File: w.name}, Msg: fmt.Sprintf("record %d at byte %d: ", w.n+1, off) + fmt.Sprintf(format, args...)}
}

// Next implements RecordReader. Records that are documents are response
// records holding HTTP (Content-Type application/http) and resource
// records; warcinfo records are RecordCopy; request, metadata and revisit
// records RecordRelated; the others (non-HTTP responses, conversion,
// continuation) are passed over and counted for Report.
func (w *WARCReader) Next(buf []byte) (Record, []byte, error) {
	for {
		rec, b, err := w.next(buf)
		buf = b
		if err != nil {
			return rec, buf, err
		}
		if w.classify(&rec) {
			return rec, buf, nil
		}
	}
}

// next returns the next record of any type.
func (w *WARCReader) next(buf []byte) (Record, []byte, error) {
	if w.gz {
		return w.nextGzip(buf)
	}
	return w.nextPlain(buf)
}

// nextPlain cuts the next record of a plain WARC file.
func (w *WARCReader) nextPlain(buf []byte) (Record, []byte, error) {
	off := w.off
	if _, err := w.br.Peek(1); err == io.EOF {
		return Record{}, buf, io.EOF
	}
	start := len(buf)
	for {
		line, err := w.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return Record{}, buf, w.errorf(off, "a WARC header line exceeds %d bytes", w.br.Size())
		}
		buf = append(buf, line...)
		w.off += int64(len(line))
		if err == io.EOF {
			return Record{}, buf, w.errorf(off, "the file ends inside a WARC header")
		}
		if err != nil {
			return Record{}, buf, fmt.Errorf("%s: %w", w.name, err)
		}
		if len(line) <= 2 && strings.TrimRight(string(line), "\r\n") == "" && len(buf)-start > len(line) {
			break
		}
	}
	h, err := parseWARCHeader(buf[start:])
	if err != nil {
		return Record{}, buf, w.errorf(off, "%v", err)
	}
	need := int64(h.length) + 4
	if need > int64(MaxRecord) {
		return Record{}, buf, w.errorf(off, "Content-Length %d exceeds %d bytes, the longest record a stage reads", h.length, MaxRecord)
	}
	body := len(buf)
	buf = append(buf, make([]byte, need)...)
	n, err := io.ReadFull(w.br, buf[body:])
	w.off += int64(n)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		// The last record may lack its trailing CRLF CRLF only if cut short.
		return Record{}, buf, w.errorf(off, "the file ends inside the record: Content-Length %d and CRLF CRLF, %d bytes left", h.length, n)
	}
	if err != nil {
		return Record{}, buf, fmt.Errorf("%s: %w", w.name, err)
	}
	if string(buf[len(buf)-4:]) != "\r\n\r\n" {
		return Record{}, buf, w.errorf(off, "the record's block (Content-Length %d) is not followed by CRLF CRLF", h.length)
	}
	w.n++
	rec := Record{N: w.n, Offset: off, Data: buf[start:]}
	if w.stored {
		rec.Stored = rec.Data
	}
	return rec, buf, nil
}

// byteCounter counts (and with keep records) the stored bytes a gzip
// reader consumes: it reads them one by one through ReadByte, so that it
// does not read past its member.
type byteCounter struct {
	w    *WARCReader
	keep *[]byte
}

func (c *byteCounter) ReadByte() (byte, error) {
	b, err := c.w.br.ReadByte()
	if err == nil {
		c.w.off++
		if c.keep != nil {
			*c.keep = append(*c.keep, b)
		}
	}
	return b, err
}

func (c *byteCounter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	b, err := c.ReadByte()
	if err != nil {
		return 0, err
	}
	p[0] = b
	return 1, nil
}

// nextGzip returns the next record of a .warc.gz: the records of a member
// are decompressed whole and returned one by one.
func (w *WARCReader) nextGzip(buf []byte) (Record, []byte, error) {
	if len(w.queue) == 0 {
		if err := w.readMember(); err != nil {
			return Record{}, buf, err
		}
	}
	rec := w.queue[0]
	w.queue = w.queue[1:]
	start := len(buf)
	buf = append(buf, rec.Data...)
	rec.Data = buf[start:]
	if rec.Stored != nil {
		s := len(buf)
		buf = append(buf, rec.Stored...)
		rec.Stored = buf[s:]
	}
	return rec, buf, nil
}

// readMember decompresses the next gzip member and queues its records.
func (w *WARCReader) readMember() error {
	off := w.off
	if _, err := w.br.Peek(1); err == io.EOF {
		return io.EOF
	}
	var stored []byte
	c := &byteCounter{w: w}
	if w.stored {
		c.keep = &stored
	}
	var err error
	if w.zr == nil {
		w.zr, err = gzip.NewReader(c)
	} else {
		err = w.zr.Reset(c)
	}
	if err != nil {
		return w.errorf(off, "gzip: %v", err)
	}
	w.zr.Multistream(false)
	w.member = w.member[:0]
	lr := &io.LimitedReader{R: w.zr, N: int64(MaxRecord) + 1}
	bb := bytes.NewBuffer(w.member)
	if _, err := bb.ReadFrom(lr); err != nil {
		return w.errorf(off, "gzip: %v", err)
	}
	w.member = bb.Bytes()
	if len(w.member) > MaxRecord {
		return w.errorf(off, "a gzip member holds more than %d bytes (decompressed), the longest record a stage reads", MaxRecord)
	}
	data := w.member
	first := w.n
	for len(data) > 0 {
		h, err := parseWARCHeader(data)
		if err != nil {
			return w.errorf(off, "%v", err)
		}
		end := h.blockStart + h.length + 4
		if end > len(data) {
			return w.errorf(off, "the gzip member ends inside the record: Content-Length %d", h.length)
		}
		if string(data[end-4:end]) != "\r\n\r\n" {
			return w.errorf(off, "the record's block (Content-Length %d) is not followed by CRLF CRLF", h.length)
		}
		w.n++
		w.queue = append(w.queue, Record{N: w.n, Offset: off, Data: data[:end]})
		data = data[end:]
	}
	switch n := w.n - first; {
	case n == 0:
		return w.errorf(off, "an empty gzip member")
	case n == 1:
		w.queue[0].Stored = stored
	default:
		// Several records in one member can't be copied one by one: keep
		// refuses to write them (Stored is nil).
		w.multiple += n
	}
	return nil
}

// warcHeader is what the stages read of a WARC record's header.
type warcHeader struct {
	fields     []byte // the header lines after the version line
	blockStart int    // where the block starts in the record
	length     int
}

// parseWARCHeader reads the version line and the header fields of the
// record that b starts with; b holds at least the whole header.
func parseWARCHeader(b []byte) (warcHeader, error) {
	var h warcHeader
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return h, fmt.Errorf("want a WARC version line (WARC/1.0), got %q", clip(b))
	}
	version := strings.TrimRight(string(b[:i]), "\r")
	if !strings.HasPrefix(version, "WARC/1.") {
		return h, fmt.Errorf("want a WARC version line (WARC/1.0 or WARC/1.1), got %q", clip(b[:i]))
	}
	end := bytes.Index(b[i+1:], []byte("\r\n\r\n"))
	if end < 0 {
		if i+1+2 <= len(b) && string(b[i+1:i+3]) == "\r\n" {
			end = -2 // no fields at all
		} else {
			return h, fmt.Errorf("the WARC header does not end in CRLF CRLF")
		}
	}
	h.fields = b[i+1 : i+1+end+2]
	h.blockStart = i + 1 + end + 4
	v, ok := h.get("Content-Length")
	if !ok {
		return h, fmt.Errorf("no Content-Length in the WARC header")
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(v)))
	if err != nil || n < 0 || n > MaxRecord {
		return h, fmt.Errorf("Content-Length %q: want a number of bytes up to %d, the longest record a stage reads", clip(v), MaxRecord)
	}
	h.length = n
	return h, nil
}

// get returns the value of the first header field named name
// (case-insensitive), trimmed.
func (h warcHeader) get(name string) ([]byte, bool) {
	return headerField(h.fields, name)
}

// headerField finds a field in header lines "Name: value" (CRLF or LF).
func headerField(fields []byte, name string) ([]byte, bool) {
	var v []byte
	found := false
	eachField(fields, name, func(b []byte) bool { v, found = b, true; return false })
	return v, found
}

// headerFields returns every value of a field (WARC-Concurrent-To may be
// given more than once).
func headerFields(fields []byte, name string) [][]byte {
	var vs [][]byte
	eachField(fields, name, func(b []byte) bool { vs = append(vs, b); return true })
	return vs
}

// eachField calls fn with the trimmed value of each field named name
// (case-insensitive) until it returns false.
func eachField(fields []byte, name string, fn func([]byte) bool) {
	for len(fields) > 0 {
		var line []byte
		if i := bytes.IndexByte(fields, '\n'); i < 0 {
			line, fields = fields, nil
		} else {
			line, fields = fields[:i], fields[i+1:]
		}
		c := bytes.IndexByte(line, ':')
		if c >= 0 && strings.EqualFold(strings.TrimSpace(string(line[:c])), name) {
			if !fn(bytes.TrimSpace(line[c+1:])) {
				return
			}
		}
	}
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// classify sets a record's kind and links, or counts it and says false
// when the stages pass over it.
func (w *WARCReader) classify(rec *Record) bool {
	h, _ := parseWARCHeader(rec.Data)
	typ, _ := h.get("WARC-Type")
	t := strings.ToLower(string(typ))
	rec.Key, _ = h.get(warcRecordID)
	rec.URI, _ = h.get(warcTargetURI)
	rec.Concerns = append(headerFields(h.fields, "WARC-Concurrent-To"), headerFields(h.fields, "WARC-Refers-To")...)
	switch t {
	case "response":
		ct, _ := h.get("Content-Type")
		if !strings.HasPrefix(strings.ToLower(string(ct)), "application/http") {
			w.nonHTTP++
			return false
		}
		rec.Kind = RecordDocument
		return true
	case "resource":
		rec.Kind = RecordDocument
		return true
	case "warcinfo":
		rec.Kind = RecordCopy
	case "request", "metadata", "revisit":
		rec.Kind = RecordRelated
	default:
		if t == "" {
			t = "(no WARC-Type)"
		}
		w.passed[t]++
		return false
	}
	w.passed[t]++
	return true
}

// Report implements RecordReader.
func (w *WARCReader) Report(stderr io.Writer, stage string) {
	var parts []string
	var total int64
	for _, t := range []string{"warcinfo", "request", "metadata", "revisit"} {
		if n := w.passed[t]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, t))
			total += n
		}
	}
	var other int64
	for t, n := range w.passed {
		switch t {
		case "warcinfo", "request", "metadata", "revisit":
		default:
			other += n
		}
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d of other types (conversion, continuation)", other))
		total += other
	}
	if w.nonHTTP > 0 {
		parts = append(parts, fmt.Sprintf("%d non-HTTP response", w.nonHTTP))
		total += w.nonHTTP
	}
	if total > 0 {
		fmt.Fprintf(stderr, "%s: %s: %d WARC record(s) not documents: %s\n", stage, w.name, total, strings.Join(parts, ", "))
	}
	if w.multiple > 0 {
		fmt.Fprintf(stderr, "%s: %s: %d WARC record(s) share a gzip member with others\n", stage, w.name, w.multiple)
	}
}

// warcDocument is the Format.Document of WARC: the id from the header
// field the id field names, the text from the block: a response's HTTP
// body once its transfer and content encodings are undone, a resource's
// block as it is; under --text html (or auto, for HTML) its visible text.
func warcDocument(rec *Record, r Reading, s *Scratch) (id, text []byte, err error) {
	h, err := parseWARCHeader(rec.Data)
	if err != nil {
		return nil, nil, record.Bad("%v", err)
	}
	field := WARCIDField(r.IDField)
	v, ok := h.get(field)
	if !ok || len(v) == 0 {
		return nil, nil, record.Bad("no %s in the WARC header (the id field)", field)
	}
	if field == warcTargetURI || field == warcRecordID {
		// WARC/1.0 writes them in angle brackets: <urn:uuid:…>.
		v = bytes.TrimSuffix(bytes.TrimPrefix(v, []byte("<")), []byte(">"))
	}
	s.ID = record.EscapeID(s.ID[:0], v)
	block := rec.Data[h.blockStart : h.blockStart+h.length]
	typ, _ := h.get("WARC-Type")
	contentType, _ := h.get("Content-Type")
	if strings.EqualFold(string(typ), "response") {
		var err error
		block, contentType, err = httpBody(block, s)
		if err != nil {
			return nil, nil, record.Bad("%v", err)
		}
	}
	return s.ID, TextOf(block, contentType, r, s), nil
}

// httpBody returns the body of an HTTP response with its chunked transfer
// encoding and its content encoding (gzip, deflate) undone, and its
// Content-Type.
func httpBody(b []byte, s *Scratch) (body, contentType []byte, err error) {
	i := bytes.Index(b, []byte("\r\n\r\n"))
	n := 4
	if j := bytes.Index(b, []byte("\n\n")); j >= 0 && (i < 0 || j < i) {
		i, n = j, 2
	}
	if i < 0 {
		return nil, nil, fmt.Errorf("the HTTP response has no end of header")
	}
	head, body := b[:i+2], b[i+n:]
	if !bytes.HasPrefix(head, []byte("HTTP/")) {
		return nil, nil, fmt.Errorf("want an HTTP response (HTTP/1.1 200 …), got %q", clip(head))
	}
	nl := bytes.IndexByte(head, '\n')
	fields := head[nl+1:]
	contentType, _ = headerField(fields, "Content-Type")
	if te, ok := headerField(fields, "Transfer-Encoding"); ok && bytes.Contains(bytes.ToLower(te), []byte("chunked")) {
		if body, err = dechunk(s.Buf[:0], body); err != nil {
			return nil, nil, err
		}
		s.Buf = body
	}
	ce, _ := headerField(fields, "Content-Encoding")
	switch enc := strings.ToLower(string(ce)); enc {
	case "", "identity":
	case "gzip", "x-gzip", "deflate", "br":
		if body, err = decodeContent(enc, body); err != nil {
			return nil, nil, fmt.Errorf("Content-Encoding %s: %v", enc, err)
		}
	default:
		return nil, nil, fmt.Errorf("Content-Encoding %q: not supported (gzip, deflate, br)", enc)
	}
	return body, contentType, nil
}

// dechunk undoes the chunked transfer encoding.
func dechunk(dst, b []byte) ([]byte, error) {
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, fmt.Errorf("chunked body: no chunk size line")
		}
		line := bytes.TrimSpace(b[:i])
		if j := bytes.IndexByte(line, ';'); j >= 0 {
			line = bytes.TrimSpace(line[:j])
		}
		n, err := strconv.ParseUint(string(line), 16, 31)
		if err != nil {
			return nil, fmt.Errorf("chunked body: chunk size %q", clip(line))
		}
		b = b[i+1:]
		if n == 0 {
			return dst, nil // trailers are not the body
		}
		if uint64(len(b)) < n {
			return nil, fmt.Errorf("chunked body: a chunk of %d bytes, %d left", n, len(b))
		}
		dst = append(dst, b[:n]...)
		b = bytes.TrimPrefix(bytes.TrimPrefix(b[n:], []byte("\r")), []byte("\n"))
	}
}

func decodeContent(enc string, b []byte) ([]byte, error) {
	var r io.Reader
	switch enc {
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "deflate":
		// "deflate" is zlib-wrapped by the standard, raw by some servers.
		if len(b) >= 2 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0 && b[0]&0x0f == 8 {
			b = b[2:]
		}
		r = flate.NewReader(bytes.NewReader(b))
	default:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		r = zr
	}
	// A small compressed body can expand without end: it is decoded up to
	// the limit of a record.
	out, err := io.ReadAll(io.LimitReader(r, int64(MaxRecord)+1))
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	if err == io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("the body is cut short")
	}
	if len(out) > MaxRecord {
		return nil, fmt.Errorf("the body decodes to more than %d bytes, the longest document a stage reads", MaxRecord)
	}
	return out, nil
}
