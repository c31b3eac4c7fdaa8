package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// FormatParquet reads the documents of Parquet files: a row a document, the
// id and the text from the columns IDField and TextField name.
const FormatParquet = "parquet"

var parquetMagic = []byte("PAR1")

// Parquet is registered by name only: it is read from a file at random
// (its index is at its end), by stream.Parquet, not by a record reader over
// a stream, and recognised by content on the command line (IsParquet: PAR1
// at both ends) before a source is chosen.
func init() { Register(&Format{Name: FormatParquet, Unit: "row", Fields: true}) }

// What a Parquet file may declare before anything it declares is
// allocated: a malformed file is an error, never a huge allocation.
const (
	// MaxParquetFooter bounds the file's metadata (its footer).
	MaxParquetFooter = 64 << 20
	// maxPageHeader bounds the header of one page.
	maxPageHeader = 16 << 20
	// maxPageValues bounds the values of one page of the columns read.
	maxPageValues = 1 << 26
)

// MaxParquetPage bounds a page of the id or text column, compressed or not
// (the longest text a Parquet document may have); tests lower it.
var MaxParquetPage int64 = 1 << 30

// IsParquet says whether the file name is a Parquet file: "PAR1" at its
// start and at its end.
func IsParquet(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < 12 {
		return false
	}
	var head, tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return false
	}
	if _, err := f.ReadAt(tail[:], st.Size()-4); err != nil {
		return false
	}
	return bytes.Equal(head[:], parquetMagic) && bytes.Equal(tail[:], parquetMagic)
}

// ParquetFile is a Parquet file open for its documents. Its row groups may
// be read at the same time by several goroutines. It is closed when the
// last reference is released.
type ParquetFile struct {
	Name string
	// File is the parsed file (schema, row groups, metadata).
	File *parquet.File
	// IDColumn and TextColumn are the leaf columns of the id and the text;
	// IDColumn is -1 when the file has no id column (the ids are then row
	// numbers, as for JSON Lines documents without the id field).
	IDColumn, TextColumn int

	f    *os.File
	size int64
	refs atomic.Int32
	// firstRow[i] is the number of rows before row group i.
	firstRow []int64
}

// OpenParquet opens a Parquet file and finds the columns r names
// (IDField, TextField; a dotted path names a nested column). The text
// column holds byte arrays (UTF-8 strings or bytes), the id column byte
// arrays or integers; neither may be repeated. Standard input can't be
// read: a Parquet file's index is at its end.
func OpenParquet(name string, r Reading) (*ParquetFile, error) {
	if name == "-" || name == StdinName {
		return nil, status.Usagef("%s: Parquet is read from a file (its metadata is at its end), not from standard input: give the file's name", StdinName)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	p, err := openParquet(name, f, r)
	if err != nil {
		f.Close()
		err = fmt.Errorf("%s: %w", name, err)
		if errors.Is(err, errColumn) {
			return nil, status.Usage(err)
		}
		return nil, &BadParquet{err}
	}
	return p, nil
}

func openParquet(name string, f *os.File, r Reading) (_ *ParquetFile, err error) {
	defer recoverBad(&err)
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("Parquet is read from a regular file (its metadata is at its end)")
	}
	p := &ParquetFile{Name: name, f: f, size: st.Size()}
	if err := p.open(r); err != nil {
		return nil, err
	}
	p.refs.Store(1)
	return p, nil
}

// open checks the footer, then parses it and finds the columns.
func (p *ParquetFile) open(r Reading) error {
	if p.size < 12 {
		return fmt.Errorf("not a Parquet file: %d bytes", p.size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := p.f.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := p.f.ReadAt(tail[:], p.size-8); err != nil {
		return err
	}
	if string(head[:]) == "PARE" || string(tail[4:]) == "PARE" {
		return errors.New("the Parquet file is encrypted: it can't be read")
	}
	if !bytes.Equal(head[:], parquetMagic) || !bytes.Equal(tail[4:], parquetMagic) {
		return errors.New("not a Parquet file: no PAR1 at its start and its end")
	}
	footer := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footer > p.size-12 || footer > MaxParquetFooter {
		return fmt.Errorf("malformed Parquet file: its metadata claims %d bytes (the file has %d, at most %d are read)", footer, p.size, MaxParquetFooter)
	}
	meta := make([]byte, footer)
	if _, err := p.f.ReadAt(meta, p.size-8-footer); err != nil {
		return err
	}
	if err := checkThrift(meta); err != nil {
		return fmt.Errorf("malformed Parquet metadata: %w", err)
	}
	pf, err := parquet.OpenFile(p.f, p.size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
		parquet.OptimisticRead(false), parquet.ReadBufferSize(64<<10))
	if err != nil {
		return fmt.Errorf("malformed Parquet file: %w", err)
	}
	p.File = pf
	md := pf.Metadata()
	var rows int64
	for i, rg := range md.RowGroups {
		if rg.NumRows < 0 {
			return fmt.Errorf("malformed Parquet file: row group %d has %d rows", i, rg.NumRows)
		}
		p.firstRow = append(p.firstRow, rows)
		rows += rg.NumRows
		for _, c := range rg.Columns {
			m := c.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 {
				start = min(start, m.DictionaryPageOffset)
			}
			if start < 4 || m.TotalCompressedSize < 0 || start+m.TotalCompressedSize > p.size-8-footer {
				return fmt.Errorf("malformed Parquet file: a column chunk of row group %d lies outside the data", i)
			}
		}
	}
	if p.TextColumn, err = p.column("--text-field", r.TextField, false); err != nil {
		return err
	}
	if p.IDColumn, err = p.column("--id-field", r.IDField, true); err != nil {
		if !errors.Is(err, errNoColumn) || r.IDRequired {
			return err
		}
		p.IDColumn = -1
	}
	return nil
}

var (
	errNoColumn = errors.New("no such column")
	// errColumn marks the errors of columns that do not fit the flags.
	errColumn = errors.New("column")
)

// BadParquet is a Parquet file that can't be read: bad input.
type BadParquet struct{ Err error }

func (e *BadParquet) Error() string       { return e.Err.Error() }
func (e *BadParquet) Unwrap() error       { return e.Err }
func (e *BadParquet) Class() status.Class { return status.BadInput }

// columnError is a column that does not fit the flags; missing says it is
// not there at all.
type columnError struct {
	msg     string
	missing bool
}

func (e *columnError) Error() string { return e.msg }
func (e *columnError) Is(t error) bool {
	return t == errColumn || t == errNoColumn && e.missing
}

// column finds the leaf column named field: a top-level name, or a dotted
// path to a nested one.
func (p *ParquetFile) column(flag, field string, id bool) (int, error) {
	schema := p.File.Schema()
	leaf, ok := schema.Lookup(field)
	if !ok && strings.Contains(field, ".") {
		leaf, ok = schema.Lookup(strings.Split(field, ".")...)
	}
	if !ok {
		return -1, &columnError{fmt.Sprintf("%s %s: %v in the Parquet file (its columns: %s)", flag, field, errNoColumn, p.columnNames()), true}
	}
	if leaf.MaxRepetitionLevel > 0 {
		return -1, &columnError{fmt.Sprintf("%s %s: the column is repeated (a list): want one value a row", flag, field), false}
	}
	if !leaf.Node.Leaf() {
		return -1, &columnError{fmt.Sprintf("%s %s: the column is a group (%s): want strings", flag, field, leaf.Node.Type()), false}
	}
	kind := leaf.Node.Type().Kind()
	switch {
	case kind == parquet.ByteArray:
	case id && (kind == parquet.Int32 || kind == parquet.Int64):
	case id:
		return -1, &columnError{fmt.Sprintf("%s %s: the column holds %s: want strings or integers", flag, field, kind), false}
	default:
		return -1, &columnError{fmt.Sprintf("%s %s: the column holds %s: want strings (byte arrays)", flag, field, kind), false}
	}
	return leaf.ColumnIndex, nil
}

func (p *ParquetFile) columnNames() string {
	var names []string
	for _, path := range p.File.Schema().Columns() {
		names = append(names, strings.Join(path, "."))
	}
	return strings.Join(names, ", ")
}

// NumRowGroups returns the number of row groups.
func (p *ParquetFile) NumRowGroups() int { return len(p.firstRow) }

// FirstRow returns the number of rows before row group i.
func (p *ParquetFile) FirstRow(i int) int64 { return p.firstRow[i] }

// Size returns the file's size in bytes.
func (p *ParquetFile) Size() int64 { return p.size }

// GroupBytes returns the stored size of row group i.
func (p *ParquetFile) GroupBytes(i int) int64 {
	var n int64
	for _, c := range p.File.Metadata().RowGroups[i].Columns {
		n += c.MetaData.TotalCompressedSize
	}
	return n
}

// Ref takes a reference: the file stays open until it is released.
func (p *ParquetFile) Ref() { p.refs.Add(1) }

// Release drops a reference; the last closes the file.
func (p *ParquetFile) Release() {
	if p.refs.Add(-1) == 0 {
		p.f.Close()
	}
}

// ReaderAt returns the open file.
func (p *ParquetFile) ReaderAt() io.ReaderAt { return p.f }

// ParquetGroup is one row group of a Parquet file: the documents a chunk
// holds. It holds a reference to the file until it is released.
type ParquetGroup struct {
	File  *ParquetFile
	Index int
}

// Release drops the group's reference to its file.
func (g *ParquetGroup) Release() { g.File.Release() }

// ParquetDocument is one row as ReadGroup gives it.
type ParquetDocument struct {
	// Row is the row's number in the file, from 1.
	Row int64
	// ID holds the id as stored (a byte array, or an integer's decimal
	// digits); NoID says the file has no id column or the id is null.
	ID   []byte
	NoID bool
	// Text holds the text; TextNull says it is null.
	Text     []byte
	TextNull bool
}

// ReadGroup calls fn with each row of row group i in order. The slices are
// valid until fn returns. An error from fn stops the reading and is
// returned; a malformed group is an error naming the file.
func (p *ParquetFile) ReadGroup(i int, fn func(d *ParquetDocument) error) error {
	if err := p.readGroup(i, fn); err != nil {
		var le *record.LineError
		var re *record.Error
		if errors.As(err, &le) || errors.As(err, &re) || errors.Is(err, errStop) {
			return err
		}
		return &BadParquet{fmt.Errorf("%s: row group %d: %w", p.Name, i, err)}
	}
	return nil
}

var errStop = errors.New("stopped")

// recoverBad turns a panic of the Parquet library on a malformed file into
// an error: what the checks before it (checkThrift, checkPages) did not
// catch.
func recoverBad(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("malformed Parquet file: the reader failed: %v", r)
	}
}

func (p *ParquetFile) readGroup(i int, fn func(d *ParquetDocument) error) (err error) {
	defer recoverBad(&err)
	rg := p.File.Metadata().RowGroups[i]
	rows := rg.NumRows
	text := &columnCursor{}
	if err := text.open(p, i, p.TextColumn, rows); err != nil {
		return err
	}
	defer text.close()
	var id *columnCursor
	if p.IDColumn >= 0 {
		id = &columnCursor{}
		if err := id.open(p, i, p.IDColumn, rows); err != nil {
			return err
		}
		defer id.close()
	}
	d := &ParquetDocument{}
	var idBuf []byte
	for r := int64(0); r < rows; r++ {
		d.Row = p.firstRow[i] + r + 1
		tv, err := text.next()
		if err != nil {
			return columnEnd(err, p, p.TextColumn, rows, r)
		}
		d.TextNull = tv.IsNull()
		d.Text = tv.ByteArray()
		d.NoID = true
		d.ID = nil
		if id != nil {
			iv, err := id.next()
			if err != nil {
				return columnEnd(err, p, p.IDColumn, rows, r)
			}
			if !iv.IsNull() {
				d.NoID = false
				switch iv.Kind() {
				case parquet.Int32:
					idBuf = strconv.AppendInt(idBuf[:0], int64(iv.Int32()), 10)
					d.ID = idBuf
				case parquet.Int64:
					idBuf = strconv.AppendInt(idBuf[:0], iv.Int64(), 10)
					d.ID = idBuf
				default:
					d.ID = iv.ByteArray()
				}
			}
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

func columnEnd(err error, p *ParquetFile, col int, rows, r int64) error {
	if err == io.EOF {
		return fmt.Errorf("column %s holds %d values, the row group %d rows", strings.Join(p.File.Schema().Columns()[col], "."), r, rows)
	}
	return err
}

// columnCursor reads the values of one column chunk one by one.
type columnCursor struct {
	pages  parquet.Pages
	reader parquet.ValueReader
	vals   []parquet.Value
	i, n   int
}

func (c *columnCursor) open(p *ParquetFile, group, col int, rows int64) error {
	meta := p.File.Metadata().RowGroups[group].Columns[col].MetaData
	if err := checkPages(p.f, meta, rows); err != nil {
		return fmt.Errorf("column %s: %w", strings.Join(p.File.Schema().Columns()[col], "."), err)
	}
	chunk, ok := p.File.RowGroups()[group].ColumnChunks()[col].(*parquet.FileColumnChunk)
	if !ok {
		return errors.New("not a file column chunk")
	}
	c.pages = chunk.PagesFrom(p.f)
	c.vals = make([]parquet.Value, 64)
	return nil
}

func (c *columnCursor) close() {
	if c.pages != nil {
		c.pages.Close()
	}
}

// next returns the next value, io.EOF after the last.
func (c *columnCursor) next() (parquet.Value, error) {
	for c.i >= c.n {
		if c.reader == nil {
			pg, err := c.pages.ReadPage()
			if err != nil {
				return parquet.Value{}, err
			}
			c.reader = pg.Values()
		}
		n, err := c.reader.ReadValues(c.vals)
		c.i, c.n = 0, n
		if err == io.EOF {
			c.reader = nil
		} else if err != nil {
			return parquet.Value{}, err
		}
	}
	v := c.vals[c.i]
	c.i++
	return v, nil
}

// checkPages reads the page headers of a column chunk and checks what they
// declare (sizes, value counts) before the library allocates by them.
func checkPages(r io.ReaderAt, m format.ColumnMetaData, rows int64) error {
	start := m.DataPageOffset
	if m.DictionaryPageOffset > 0 {
		start = min(start, m.DictionaryPageOffset)
	}
	end := start + m.TotalCompressedSize
	var proto thrift.CompactProtocol
	buf := make([]byte, 0, 4<<10)
	var values int64
	for off := start; off < end; {
		var h format.PageHeader
		var used int
		for window := int64(1 << 10); ; window *= 4 {
			n := min(window, end-off)
			if int64(cap(buf)) < n {
				buf = make([]byte, n)
			}
			buf = buf[:n]
			if _, err := r.ReadAt(buf, off); err != nil {
				return err
			}
			if err := checkThrift(buf); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("malformed page header at byte %d: %w", off, err)
			}
			pr := proto.NewReaderFromBytes(buf)
			err := thrift.NewDecoder(pr).Decode(&h)
			if err == nil {
				used = pr.BytesRead()
				break
			}
			if n == end-off || window >= maxPageHeader {
				return fmt.Errorf("malformed page header at byte %d: %v", off, err)
			}
		}
		if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 ||
			int64(h.CompressedPageSize) > MaxParquetPage || int64(h.UncompressedPageSize) > MaxParquetPage {
			return fmt.Errorf("page at byte %d: %d bytes stored, %d decoded: want at most %d", off, h.CompressedPageSize, h.UncompressedPageSize, MaxParquetPage)
		}
		next := off + int64(used) + int64(h.CompressedPageSize)
		if next > end {
			return fmt.Errorf("page at byte %d ends past its column chunk", off)
		}
		if m.Codec == format.Lz4Raw {
			if err := checkLZ4(r, off+int64(used), &h); err != nil {
				return fmt.Errorf("page at byte %d: %w", off, err)
			}
		}
		var nv int64
		switch {
		case h.DataPageHeader.Valid:
			nv = int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			nv = int64(h.DataPageHeaderV2.V.NumValues)
			if r := int64(h.DataPageHeaderV2.V.NumRows); r < 0 || r > nv {
				return fmt.Errorf("page at byte %d: %d rows for %d values", off, r, nv)
			}
			lv := h.DataPageHeaderV2.V
			if lv.RepetitionLevelsByteLength < 0 || lv.DefinitionLevelsByteLength < 0 ||
				int64(lv.RepetitionLevelsByteLength)+int64(lv.DefinitionLevelsByteLength) > int64(h.CompressedPageSize) {
				return fmt.Errorf("page at byte %d: its levels are longer than the page", off)
			}
		case h.DictionaryPageHeader.Valid:
			if d := int64(h.DictionaryPageHeader.V.NumValues); d < 0 || d > maxPageValues || d > int64(h.UncompressedPageSize) {
				return fmt.Errorf("dictionary page at byte %d: %d values in %d bytes", off, d, h.UncompressedPageSize)
			}
		}
		if nv < 0 || nv > maxPageValues {
			return fmt.Errorf("page at byte %d: %d values: want at most %d", off, nv, maxPageValues)
		}
		values += nv
		if values > rows {
			return fmt.Errorf("the pages hold more values than the %d rows of the row group", rows)
		}
		off = next
	}
	return nil
}

// checkThrift walks a thrift compact-protocol structure and refuses one
// whose lists, maps or strings claim more elements than bytes remain (the
// decoder allocates what a list claims) or that nests too deeply.
func checkThrift(b []byte) error {
	t := thriftWalker{b: b}
	return t.structure(0)
}

type thriftWalker struct {
	b []byte
	i int
}

var errThriftShort = fmt.Errorf("truncated: %w", io.ErrUnexpectedEOF)

func (t *thriftWalker) byte() (byte, error) {
	if t.i >= len(t.b) {
		return 0, errThriftShort
	}
	c := t.b[t.i]
	t.i++
	return c, nil
}

func (t *thriftWalker) uvarint() (uint64, error) {
	v, n := binary.Uvarint(t.b[t.i:])
	if n == 0 {
		return 0, errThriftShort
	}
	if n < 0 {
		return 0, errors.New("varint overflows")
	}
	t.i += n
	return v, nil
}

func (t *thriftWalker) skip(n uint64) error {
	if n > uint64(len(t.b)-t.i) {
		return errThriftShort
	}
	t.i += int(n)
	return nil
}

func (t *thriftWalker) structure(depth int) error {
	if depth > 64 {
		return errors.New("nested too deeply")
	}
	for {
		h, err := t.byte()
		if err != nil {
			return err
		}
		typ := h & 0x0f
		if typ == 0 {
			return nil
		}
		if h>>4 == 0 { // the field id follows, zigzag
			if _, err := t.uvarint(); err != nil {
				return err
			}
		}
		if err := t.value(typ, depth); err != nil {
			return err
		}
	}
}

// element skips an element of a list, set or map: a boolean there takes a
// byte of its own.
func (t *thriftWalker) element(typ byte, depth int) error {
	if typ == 1 || typ == 2 {
		return t.skip(1)
	}
	return t.value(typ, depth+1)
}

func (t *thriftWalker) value(typ byte, depth int) error {
	switch typ {
	case 1, 2: // booleans in a field header
		return nil
	case 3:
		return t.skip(1)
	case 4, 5, 6:
		_, err := t.uvarint()
		return err
	case 7:
		return t.skip(8)
	case 8:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		return t.skip(n)
	case 9, 10:
		h, err := t.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = t.uvarint(); err != nil {
				return err
			}
		}
		if n > uint64(len(t.b)-t.i) {
			return fmt.Errorf("a list claims %d elements in %d bytes", n, len(t.b)-t.i)
		}
		for k := uint64(0); k < n; k++ {
			if err := t.element(h&0x0f, depth); err != nil {
				return err
			}
		}
		return nil
	case 11:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if n > uint64(len(t.b)-t.i)/2 {
			return fmt.Errorf("a map claims %d entries in %d bytes", n, len(t.b)-t.i)
		}
		kv, err := t.byte()
		if err != nil {
			return err
		}
		for k := uint64(0); k < n; k++ {
			if err := t.element(kv>>4, depth); err != nil {
				return err
			}
			if err := t.element(kv&0x0f, depth); err != nil {
				return err
			}
		}
		return nil
	case 12:
		return t.structure(depth + 1)
	case 13:
		return t.skip(16)
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}

// ParquetDoc returns the id, in the escaped form records carry, and the text
// of a Parquet row under p's id rules, as Parse does for a JSON Lines line:
// a string id escaped, an integer as its digits, a null or missing id the
// row's ordinal (counted in NoID); arrival numbers when the reading says.
// Errors are *record.LineError.
func (p *DocParser) ParquetDoc(d *ParquetDocument, ordinal int64) (id, text []byte, err error) {
	if d.TextNull {
		return nil, nil, record.Bad("row %d: the text column %q is null", d.Row, p.r.TextField)
	}
	switch {
	case p.r.Number:
		own := d.ID
		if d.NoID {
			own = nil
		}
		p.keepOwn(record.EscapeID(p.own[:0], own), ordinal)
		p.id, err = AppendNumber(p.id[:0], p.r.NumberFrom, ordinal)
		if err != nil {
			return nil, nil, err
		}
	case d.NoID:
		if p.r.IDRequired {
			return nil, nil, record.Bad("row %d: the id column %q is null", d.Row, p.r.IDField)
		}
		if p.NoID != nil {
			p.NoID.Add(1)
		}
		p.id = strconv.AppendInt(p.id[:0], ordinal, 10)
	default:
		p.id = record.EscapeID(p.id[:0], d.ID)
	}
	return p.id, d.Text, nil
}

// CheckGroup checks the page headers of every column of row group i, as
// ReadGroup does for the id and text columns: before all its columns are
// read (keep copies the rows).
func (p *ParquetFile) CheckGroup(i int) error {
	rg := p.File.Metadata().RowGroups[i]
	for c, col := range rg.Columns {
		if err := checkPages(p.f, col.MetaData, valuesBound(p, c, rg.NumRows)); err != nil {
			return &BadParquet{fmt.Errorf("%s: row group %d: column %s: %w", p.Name, i, strings.Join(p.File.Schema().Columns()[c], "."), err)}
		}
	}
	return nil
}

// valuesBound is how many values column c may hold in a row group of rows
// rows: one a row unless the column is repeated (a list), each page then
// bounded on its own.
func valuesBound(p *ParquetFile, c int, rows int64) int64 {
	leaf, ok := p.File.Schema().Lookup(p.File.Schema().Columns()[c]...)
	if ok && leaf.MaxRepetitionLevel > 0 {
		return math.MaxInt64
	}
	return rows
}

// checkLZ4 decompresses an LZ4_RAW page into its declared size: the
// library's decoder retries a block that fails with an ever larger buffer,
// so a malformed block would take all memory.
func checkLZ4(r io.ReaderAt, off int64, h *format.PageHeader) error {
	src := make([]byte, h.CompressedPageSize)
	if _, err := r.ReadAt(src, off); err != nil {
		return err
	}
	size := int(h.UncompressedPageSize)
	if v2 := h.DataPageHeaderV2; v2.Valid {
		if !v2.V.IsCompressed.Valid || v2.V.IsCompressed.V {
			levels := int(v2.V.RepetitionLevelsByteLength) + int(v2.V.DefinitionLevelsByteLength)
			if levels < 0 || levels > len(src) {
				return errors.New("LZ4: levels longer than the page")
			}
			src, size = src[levels:], size-levels
		} else {
			return nil
		}
	}
	if size < 0 {
		return errors.New("LZ4: levels longer than the page")
	}
	if _, err := lz4.UncompressBlock(src, make([]byte, size)); err != nil {
		return fmt.Errorf("LZ4: %v", err)
	}
	return nil
}
