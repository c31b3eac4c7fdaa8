package input

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// A Format is a way documents are stored. Each format registers itself
// once (Register, from an init function of its file); everything that
// names, recognises or reads a format asks the registry: --format and the
// header's format= (Lookup), the names in messages (FormatNames), the
// format of a file under --format auto (FormatOf, SniffFormat), how a
// stage reads its documents (Line, Records) and what its progress counts
// (Unit). Adding a format is one Register call: nothing else names it.
type Format struct {
	// Name is what --format and the shingle header's format= call it.
	Name string
	// Extensions are the file name endings (lower case, with the dot) that
	// give the format under --format auto, also under .gz, .gzip, .zst or
	// .zstd.
	Extensions []string
	// Magic are the prefixes, one of which the first bytes of a file
	// (decompressed) start with when it holds the format; under --format
	// auto they win over the name. Empty: the format is not recognised by
	// its content.
	Magic []string
	// Unit is what a stage's progress counts of it: "line" when empty.
	Unit string
	// Files says that each file is one document, read whole.
	Files bool
	// Fields says that its documents have named fields, which --id-field
	// and --text-field name (JSON Lines keys, WARC headers, columns).
	Fields bool
	// Line reads the id and the text of a document from one line of an
	// input (DocParser.Parse), for a format read line by line; nil for the
	// formats read as records and Files.
	Line LineFunc
	// Records opens a reader of the records of one input (asked for the
	// records as stored when stored is set: keep copies them), for a format
	// that is not read line by line; nil for the line formats (Line) and
	// Files.
	Records func(f *File, r Reading, stored bool) (RecordReader, error)
	// Document returns the id (escaped, as records carry it) and the text
	// of a record that Records read (Kind RecordDocument), in workers;
	// scratch is the worker's own. Errors are *record.LineError, or a
	// *record.Error that names its place.
	Document func(rec *Record, r Reading, scratch *Scratch) (id, text []byte, err error)
}

// A LineFunc returns the id, in the escaped form records carry, and the
// text of the document in line (without its line end); ordinal is the
// line's number counted across all inputs. escaped says that the text is
// written escaped, as in a record, for DocParser.Parse to unescape. The
// slices may point into line.
// Errors are *record.LineError.
type LineFunc func(p *DocParser, line []byte, ordinal int64) (id, text []byte, escaped bool, err error)

// formats are the registered formats, in the order of registration; the
// first is the default (TSV).
var formats []*Format

// Register adds a format. It panics on a name given twice: formats are
// registered once, at initialisation.
func Register(f *Format) {
	if _, ok := Lookup(f.Name); ok || f.Name == "" || f.Name == "auto" {
		panic(fmt.Sprintf("input: format %q registered twice or reserved", f.Name))
	}
	formats = append(formats, f)
}

// Lookup returns the format named name.
func Lookup(name string) (*Format, bool) {
	for _, f := range formats {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// FormatNames lists the formats for messages: "tsv, jsonl, files, lines,
// parquet or warc".
func FormatNames() string {
	return NamesOf(func(*Format) bool { return true })
}

// NamesOf lists for messages the formats for which keep is true, in the
// order of registration: "tsv, jsonl, files or lines".
func NamesOf(keep func(*Format) bool) string {
	var names []string
	for _, f := range formats {
		if keep(f) {
			names = append(names, f.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// ParseFormat checks a --format value: "" (auto) or a registered format.
func ParseFormat(name string) (string, error) {
	if name == FormatAuto {
		return name, nil
	}
	if _, ok := Lookup(name); !ok {
		return "", fmt.Errorf("unknown --format %q: want %s", name, FormatNames())
	}
	return name, nil
}

// IsRecordFormat says whether format is read as records (Format.Records),
// not line by line or file by file.
func IsRecordFormat(format string) bool {
	f, ok := Lookup(format)
	return ok && f.Records != nil
}

// UnitOf returns what a stage's progress counts of documents in format
// (Format.Unit): lines for formats read line by line, and under
// FormatAuto.
func UnitOf(format string) string {
	if f, ok := Lookup(format); ok && f.Unit != "" {
		return f.Unit
	}
	return "line"
}

// maxMagic is the longest prefix a format is recognised by.
const maxMagic = 16

// SniffFormat returns the format whose magic head starts with, or "".
// more is true when head is a proper prefix of some magic: reading further
// could still recognise one.
func SniffFormat(head []byte) (format string, more bool) {
	for _, f := range formats {
		for _, m := range f.Magic {
			if len(head) >= len(m) && string(head[:len(m)]) == m {
				return f.Name, false
			}
			if len(head) < len(m) && m[:len(head)] == string(head) {
				more = true
			}
		}
	}
	return "", more
}

func init() {
	Register(&Format{Name: FormatTSV, Extensions: []string{".tsv"}, Line: (*DocParser).tsvLine})
	// A JSON object's first bytes name JSON Lines on standard input and in
	// a file whose name does not say (an id of TSV starts so only by design).
	Register(&Format{Name: FormatJSONL, Extensions: []string{".jsonl", ".json", ".ndjson"}, Magic: []string{`{"`, `{ "`}, Fields: true, Line: (*DocParser).jsonLine})
	Register(&Format{Name: FormatFiles, Unit: "file", Files: true})
	Register(&Format{Name: FormatLines, Line: (*DocParser).numberedLine})
}

// FormatOf returns the document format of a file name under FormatAuto:
// the format one of whose Extensions it ends in (also under .gz or .zst),
// else TSV (JSON Lines for .jsonl, .json and .ndjson).
func FormatOf(name string) string {
	ext := strings.ToLower(filepath.Ext(TrimCompressionSuffix(name)))
	for _, f := range formats {
		if slices.Contains(f.Extensions, ext) {
			return f.Name
		}
	}
	return FormatTSV
}

// ResolveFormat returns the format of the input named file: format, or
// under FormatAuto the one its name gives (TSV for standard input).
func ResolveFormat(format, file string) string {
	if format != FormatAuto {
		return format
	}
	if file == StdinName {
		return FormatTSV
	}
	return FormatOf(file)
}

// FileFormat returns the format of an open input: format, or under
// FormatAuto the one its content shows (Magic), else the one its name gives
// (ResolveFormat).
func FileFormat(format string, f *File) string {
	if format == FormatAuto && f.Sniffed != "" {
		return f.Sniffed
	}
	return ResolveFormat(format, f.Name)
}

// RecordKind says what a record that a RecordReader read is to the stages.
type RecordKind uint8

const (
	// RecordDocument is a document: shingled, kept or dropped.
	RecordDocument RecordKind = iota
	// RecordCopy is not a document; keep writes it as it is (a WARC
	// warcinfo record), and the other stages pass over it.
	RecordCopy
	// RecordRelated is not a document but concerns one (a WARC request or
	// metadata record): keep writes it with that document when asked.
	RecordRelated
)

// MaxRecord bounds a record of a format read as records, as read and
// decoded, and so the memory one takes: a WARC record (its Content-Length,
// a gzip member once decompressed) and an HTTP body once its content
// encoding is undone. A record over it is bad input. It is the pipeline's
// one limit, stream.MaxLine, which stream.SetMaxLine sets with it.
var MaxRecord = 1 << 30

// Record is one record of a format read as records. Its slices are valid
// as long as the buffer the reader appended them to.
type Record struct {
	Kind RecordKind
	// N numbers the records of an input from 1; Offset is where the record
	// starts in the input as stored (compressed).
	N, Offset int64
	// Stored is the record as stored, which keep copies byte for byte (a
	// whole gzip member for a .warc.gz); nil unless it was asked for.
	Stored []byte
	// Data is the record as its Format.Document reads it (decompressed).
	Data []byte
	// Key names the record for the records related to it (a WARC-Record-ID);
	// Concerns are the keys of the records it concerns (WARC-Concurrent-To,
	// WARC-Refers-To) and URI its target (WARC-Target-URI), by which keep
	// finds the document a related record goes with.
	Key      []byte
	Concerns [][]byte
	URI      []byte
	// Value is what a format attaches for its Document.
	Value any
}

// Place returns where the record is, for messages: "record 3 at byte 1234".
func (r *Record) Place() string {
	return fmt.Sprintf("record %d at byte %d", r.N, r.Offset)
}

// RecordReader reads the records of one input of a record format.
type RecordReader interface {
	// Next appends the next record's bytes to buf and returns the record,
	// whose slices point into the buf it returns; io.EOF at the end. Errors
	// name the input and the record's place.
	Next(buf []byte) (Record, []byte, error)
	// Report writes on stderr, as stage, what the reader passed over (not
	// documents, not a kind it reads), with counts; nothing when it passed
	// over nothing.
	Report(stderr io.Writer, stage string)
}

// Scratch is a worker's space for Format.Document, kept between calls.
type Scratch struct {
	ID, Text, Buf []byte
	// Value holds what a format keeps per worker (decoders).
	Value any
}
