package input

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/neardup/neardup/internal/record"
)

// Document formats.
const (
	FormatAuto  = ""
	FormatTSV   = "tsv"
	FormatJSONL = "jsonl"
	FormatFiles = "files"
	FormatLines = "lines"
)

// DocParser reads documents from lines, as every stage that reads documents
// does, so that they all give a document the same id. It keeps scratch
// space between calls and is not safe for concurrent use.
type DocParser struct {
	json JSONFields
	r    Reading
	// NoID counts the JSON Lines documents without the id field whose id is
	// their line number (when the field is not required); it may be shared
	// by the parsers of several workers.
	NoID *atomic.Int64
	// Want, when set, is asked for each TSV line's id (the arrival number
	// with Reading.Number) before its text is unescaped: a line it does
	// not want is returned with a nil text, so that a stage that needs a
	// few documents' texts (verify --documents) does not decode the others.
	Want func(id []byte) bool
	// format is the format of the lines Parse read last, and line its
	// Format.Line: chosen when the format changes, not for each line.
	format  string
	line    LineFunc
	id      []byte
	own     []byte
	text    []byte
	scratch Scratch
}

// OwnID returns, with arrival numbers (Reading.Number), the id the document
// read last has of its own: the id it gets without them (a TSV line's first
// field as written, a JSON Lines or Parquet id, its ordinal when missing or
// empty, a WARC record's, a --lines line's number). It is valid until the
// next call.
func (p *DocParser) OwnID() []byte { return p.own }

// keepOwn notes id as the document's own id, or the ordinal when it is empty.
func (p *DocParser) keepOwn(id []byte, ordinal int64) {
	if len(id) == 0 {
		p.own = strconv.AppendInt(p.own[:0], ordinal, 10)
		return
	}
	p.own = append(p.own[:0], id...)
}

// NewDocParser returns a parser that takes JSON Lines ids and texts from the
// fields named.
func NewDocParser(idField, textField string) *DocParser {
	r := DefaultReading()
	r.IDField, r.TextField = idField, textField
	return NewReadingParser(r, nil)
}

// NewReadingParser returns a parser that reads documents as r says,
// counting in noID (when not nil) the documents whose id field is missing.
func NewReadingParser(r Reading, noID *atomic.Int64) *DocParser {
	return &DocParser{json: JSONFields{IDKey: r.IDField, TextKey: r.TextField}, r: r, NoID: noID}
}

// maxNumber bounds arrival numbers to NumberDigits digits.
const maxNumber = 999_999_999_999

// AppendNumber appends the id of the document at ordinal (counted from 1)
// when ids are arrival numbers from from: NumberDigits decimal digits,
// zero-padded.
func AppendNumber(dst []byte, from, ordinal int64) ([]byte, error) {
	n := from + ordinal - 1
	if n > maxNumber || n < from {
		return dst, record.Bad("arrival number %d has more than %d digits", n, NumberDigits)
	}
	var buf [NumberDigits]byte
	for i := NumberDigits - 1; i >= 0; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return append(dst, buf[:]...), nil
}

// ParseNumber parses an id that is an arrival number: exactly NumberDigits
// decimal digits. The digits are read eight and four at a time, in the
// lanes of a word (the pairs of a dedup job are two such ids a line).
func ParseNumber(id []byte) (uint64, bool) {
	if len(id) != NumberDigits {
		return 0, false
	}
	hi := binary.LittleEndian.Uint64(id)
	lo := uint64(binary.LittleEndian.Uint32(id[8:]))
	if !digits(hi) || !digits(lo|0x3030303000000000) {
		return 0, false
	}
	return digitsValue(hi)*10000 + digitsValue(lo<<32), true
}

// digits says whether each byte of x is an ASCII decimal digit: its high
// nibble 3, and still 3 with 6 added to the byte (a carry out of a byte
// comes only from one whose high nibble is F).
func digits(x uint64) bool {
	const high = 0xf0f0f0f0f0f0f0f0
	return x&high|(x+0x0606060606060606)&high>>4 == 0x3333333333333333
}

// digitsValue is the number the eight digits of x spell, the first in its
// lowest byte: pairs of digits, then fours, then all eight, each a
// multiply and a shift.
func digitsValue(x uint64) uint64 {
	x = (x & 0x0f0f0f0f0f0f0f0f) * (10<<8 + 1) >> 8
	x = (x & 0x00ff00ff00ff00ff) * (100<<16 + 1) >> 16
	return (x & 0x0000ffff0000ffff) * (10000<<32 + 1) >> 32
}

// Parse returns the id, in the escaped form records carry, and the text
// of the document in line (without its line end) in format, a format read
// line by line (Format.Line; TSV for one that is not); ordinal is the
// line's number counted across all inputs. Both are valid until the next
// call. Errors are *record.LineError.
//
//	tsv    id TAB text, both escaped; the id is taken as written, and
//	       refused when empty or with an escape other than \t, \n, \r, \\
//	       (record.CheckID); the text is unescaped (there, a backslash
//	       before anything else stands for itself)
//	jsonl  the id field: a string (escaped; the empty string is refused),
//	       a number (as written), or, when missing or null, the ordinal;
//	       the text field must be a string
//	lines  the ordinal, and the line
//
// With arrival numbers (Reading.Number) the id is always the number of the
// ordinal (AppendNumber), whatever the line holds.
func (p *DocParser) Parse(format string, line []byte, ordinal int64) (id, text []byte, err error) {
	id, text, escaped, err := p.parseLine(format, line, ordinal)
	if err != nil {
		return id, text, err
	}
	if escaped {
		if p.Want != nil && err == nil && !p.Want(id) {
			return id, nil, nil
		}
		p.text = record.Unescape(p.text[:0], text)
		text = p.text
	}
	return id, p.Text(text), err
}

// ParseID is Parse for a stage that needs the id alone: the line is read
// and checked as Parse reads it, but its text is neither unescaped nor
// extracted (keep, deciding by arrival, spent a fifth of its time
// unescaping texts only to measure them).
func (p *DocParser) ParseID(format string, line []byte, ordinal int64) ([]byte, error) {
	id, _, _, err := p.parseLine(format, line, ordinal)
	return id, err
}

// parseLine reads the id and the text, as written, of a line (Parse).
func (p *DocParser) parseLine(format string, line []byte, ordinal int64) (id, text []byte, escaped bool, err error) {
	if p.line == nil || format != p.format {
		p.format, p.line = format, lineFunc(format)
	}
	id, text, escaped, err = p.line(p, line, ordinal)
	if err != nil {
		return id, text, escaped, err
	}
	if p.r.Number {
		p.keepOwn(id, ordinal)
		p.id, err = AppendNumber(p.id[:0], p.r.NumberFrom, ordinal)
		id = p.id
	}
	return id, text, escaped, err
}

// lineFunc returns how a line of format is read: its Format.Line, TSV's
// for a format that is not read line by line.
func lineFunc(format string) LineFunc {
	if f, ok := Lookup(format); ok && f.Line != nil {
		return f.Line
	}
	return (*DocParser).tsvLine
}

// Record returns the id (escaped) and the text of a document that the
// record reader of format read from file (Format.Document), as Parse does
// for a line: ordinal is its number among the documents of all inputs.
// Errors are *record.Error naming the file and the record's place.
func (p *DocParser) Record(format, file string, rec *Record, ordinal int64) (id, text []byte, err error) {
	f, ok := Lookup(format)
	if !ok || f.Document == nil {
		return nil, nil, fmt.Errorf("%s: format %q is not read as records", file, format)
	}
	id, text, err = f.Document(rec, p.r, &p.scratch)
	if err != nil {
		if le, ok := err.(*record.LineError); ok {
			return nil, nil, &record.Error{Pos: record.Pos{File: file}, Msg: rec.Place() + ": " + le.Msg}
		}
		return nil, nil, err
	}
	if p.r.Number {
		p.keepOwn(id, ordinal)
		p.id, err = AppendNumber(p.id[:0], p.r.NumberFrom, ordinal)
		if err != nil {
			return nil, nil, &record.Error{Pos: record.Pos{File: file}, Msg: rec.Place() + ": " + err.Error()}
		}
		return p.id, text, nil
	}
	return id, text, nil
}

// Text returns the text of a document read whole (a line's text, a file)
// under the text mode (TextOf): the content, or its visible text for HTML.
func (p *DocParser) Text(content []byte) []byte {
	return TextOf(content, nil, p.r, &p.scratch)
}

// numberedLine reads a line of FormatLines: its id is the ordinal.
func (p *DocParser) numberedLine(line []byte, ordinal int64) (id, text []byte, escaped bool, err error) {
	p.id = strconv.AppendInt(p.id[:0], ordinal, 10)
	return p.id, line, false, nil
}

// tsvLine reads a line of FormatTSV; its text as it is written (escaped,
// which Parse undoes).
func (p *DocParser) tsvLine(line []byte, ordinal int64) (id, text []byte, escaped bool, err error) {
	rawID, rawText, ok := record.Cut(line)
	if !ok {
		return nil, nil, false, record.Bad("want id TAB text, found no TAB%s", tsvHint(line))
	}
	if _, _, more := record.Cut(rawText); more {
		return nil, nil, false, record.Bad("want 2 fields (id TAB text), found %d; a TAB inside the text is written \\t", 2+strings.Count(string(rawText), "\t"))
	}
	if !p.r.Number {
		// Arrival numbers replace the id: what the line holds is not read.
		if err := record.CheckID(rawID); err != nil {
			return nil, nil, false, err
		}
	}
	p.id = append(p.id[:0], rawID...)
	return p.id, rawText, true, nil
}

// jsonLine reads a line of FormatJSONL.
func (p *DocParser) jsonLine(line []byte, ordinal int64) (id, text []byte, escaped bool, err error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil, false, record.Bad("empty line: want a JSON object")
	}
	jid, jtext, err := p.json.Parse(line)
	if err != nil {
		return nil, nil, false, record.Bad("%v%s", err, jsonHint(line))
	}
	if !jtext.Found {
		flag := "--text-field"
		if p.r.Vector {
			flag = "--vector-field"
		}
		return nil, nil, false, record.Bad("no %q field%s", p.json.TextKey, fieldsHint(line, flag))
	}
	if p.r.Vector {
		if jtext.IsString || jtext.Bytes[0] != '[' {
			return nil, nil, false, record.Bad("field %q is %s, want an array of numbers", p.json.TextKey, jsonValueKind(jtext))
		}
	} else if !jtext.IsString {
		return nil, nil, false, record.Bad("field %q is %s, want a string", p.json.TextKey, jsonKind(jtext.Bytes))
	}
	switch {
	case !jid.Found || string(jid.Bytes) == "null" && !jid.IsString:
		if p.r.Number {
			return nil, jtext.Bytes, false, nil // the id is the arrival number
		}
		if p.r.IDRequired {
			return nil, nil, false, record.Bad("no %q field (the id field given)%s", p.json.IDKey, fieldsHint(line, "--id-field"))
		}
		if p.NoID != nil {
			p.NoID.Add(1)
		}
		p.id = strconv.AppendInt(p.id[:0], ordinal, 10)
	case jid.IsString:
		if len(jid.Bytes) == 0 && !p.r.Number {
			return nil, nil, false, record.Bad("empty id")
		}
		p.id = record.EscapeID(p.id[:0], jid.Bytes)
	case jid.Bytes[0] == '-' || jid.Bytes[0] >= '0' && jid.Bytes[0] <= '9':
		p.id = append(p.id[:0], jid.Bytes...)
	default:
		return nil, nil, false, record.Bad("field %q is %s, want a string or a number", p.json.IDKey, jsonKind(jid.Bytes))
	}
	return p.id, jtext.Bytes, false, nil
}

// tsvHint is what a TSV line without a TAB adds to its error when it looks
// like JSON Lines: it starts with '{'.
func tsvHint(line []byte) string {
	if t := bytes.TrimLeft(line, " \t\r\ufeff"); len(t) > 0 && t[0] == '{' {
		return "; the input looks like JSON Lines: give --format jsonl (or name the file .jsonl)"
	}
	return ""
}

// jsonHint is what a line that is not JSON adds to its error when it looks
// like TSV: it has a TAB and does not start with '{'.
func jsonHint(line []byte) string {
	if t := bytes.TrimLeft(line, " \r\ufeff"); len(t) > 0 && t[0] != '{' && bytes.IndexByte(line, '\t') >= 0 {
		return "; the input looks like TSV (id TAB text): give --format tsv (or name the file .tsv)"
	}
	return ""
}

// maxFieldsHint is how many field names fieldsHint lists.
const maxFieldsHint = 8

// fieldsHint lists the names of the fields of the JSON object in line, in
// their order, for a message that the field wanted is not there.
func fieldsHint(line []byte, flag string) string {
	d := json.NewDecoder(bytes.NewReader(line))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var names []string
	n := 0
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return ""
		}
		if name, ok := t.(string); ok && n < maxFieldsHint {
			names = append(names, strconv.Quote(name))
		}
		n++
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return ""
		}
	}
	switch {
	case n == 0:
		return "; the object has no fields"
	case n > maxFieldsHint:
		names = append(names, fmt.Sprintf("and %d more", n-maxFieldsHint))
	}
	return fmt.Sprintf("; the line has %s: give %s NAME", strings.Join(names, ", "), flag)
}

// jsonValueKind names the kind of a JSON value for a message.
func jsonValueKind(v JSONValue) string {
	if v.IsString {
		return "a string"
	}
	return jsonKind(v.Bytes)
}

func jsonKind(lit []byte) string {
	switch lit[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// FileID appends the id of a document read whole from a file: its path,
// escaped.
func FileID(dst []byte, name string) []byte {
	return record.EscapeID(dst, []byte(name))
}
