package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/lsh"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

// Index is an open index file. Its directory (the last fingerprint and the
// offset of every block, about 20 bytes per block of every table) is in
// memory; the blocks are read from a read-only memory map (or, where there
// is none, with positioned reads) as queries need them, so an index larger
// than memory answers, at the cost of a disk read per block not cached.
// An Index is safe for concurrent use.
type Index struct {
	// Path names the file in messages.
	Path   string
	Scheme *lsh.Hamming
	// BlockSize is the number of fingerprints per block.
	BlockSize int
	// Headers are the header lines of the records the index was built
	// from (shingle, sketch): the parameters of its fingerprints.
	Headers []record.Header
	// Distinct counts the distinct fingerprints, Records the (fingerprint,
	// id) records.
	Distinct, Records uint64
	// Size is the file's size in bytes.
	Size int64

	file   *os.File
	data   []byte // the mapped file, or nil: read blocks with ReadAt
	unmap  func() error
	tables []table
	ids    section
}

// table is the in-memory part of one table.
type table struct {
	tableMeta
	dec *decoder
	// dir[p] is the first block whose last value has top bits ≥ p.
	dir   []uint32
	shift uint
}

// corruptError reports damage found in the file.
type corruptError struct {
	path, what string
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("%s: %s: the index is damaged (truncated, or changed since it was written); rebuild it", e.path, e.what)
}

// Class makes a damaged index bad input.
func (e *corruptError) Class() status.Class { return status.BadInput }

func (ix *Index) corrupt(format string, args ...any) error {
	return &corruptError{ix.Path, fmt.Sprintf(format, args...)}
}

// Open opens an index file.
func Open(path string) (*Index, error) { return open(path, true) }

func open(path string, useMap bool) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	ix := &Index{Path: path, file: f, unmap: func() error { return nil }}
	if err := ix.load(useMap); err != nil {
		f.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *Index) load(useMap bool) error {
	st, err := ix.file.Stat()
	if err != nil {
		return err
	}
	ix.Size = st.Size()
	if ix.Size < preambleSize+trailerSize {
		if ix.Size >= int64(len(magic)) && ix.hasMagic() {
			return ix.corrupt("%d bytes, too short", ix.Size)
		}
		return fmt.Errorf("%s: not a neardup index (%d bytes)", ix.Path, ix.Size)
	}
	var pre [preambleSize]byte
	if _, err := ix.file.ReadAt(pre[:], 0); err != nil {
		return err
	}
	if string(pre[:len(magic)]) != magic {
		return fmt.Errorf("%s: not a neardup index (it does not start with %q)", ix.Path, magic[:7])
	}
	if v := binary.LittleEndian.Uint32(pre[8:]); v != Version {
		return fmt.Errorf("%s: index format version %d; this program reads version %d: rebuild the index", ix.Path, v, Version)
	}
	if binary.LittleEndian.Uint32(pre[12:]) != 0 {
		return ix.corrupt("the preamble's reserved bytes are not zero")
	}
	var tr [trailerSize]byte
	if _, err := ix.file.ReadAt(tr[:], ix.Size-trailerSize); err != nil {
		return err
	}
	if string(tr[24:]) != endMagic {
		return ix.corrupt("no end marker")
	}
	footOff := binary.LittleEndian.Uint64(tr[0:])
	footLen := binary.LittleEndian.Uint64(tr[8:])
	if footOff < preambleSize || footLen > uint64(ix.Size) || footOff+footLen != uint64(ix.Size)-trailerSize {
		return ix.corrupt("the footer's place does not fit the file's size")
	}
	foot := make([]byte, footLen)
	if _, err := ix.file.ReadAt(foot, int64(footOff)); err != nil {
		return err
	}
	if xxhash.Sum64(foot) != binary.LittleEndian.Uint64(tr[16:]) {
		return ix.corrupt("footer checksum mismatch")
	}
	ft, err := parseFooter(foot, footOff)
	if err != nil {
		return ix.corrupt("footer: %v", err)
	}
	if ft.f != 64 {
		return ix.corrupt("%d-bit fingerprints", ft.f)
	}
	ix.Scheme, err = lsh.NewHamming(ft.f, ft.k, ft.blocks)
	if err != nil {
		return ix.corrupt("%v", err)
	}
	if len(ft.tables) != len(ix.Scheme.Tables) {
		return ix.corrupt("%d tables, the layout has %d", len(ft.tables), len(ix.Scheme.Tables))
	}
	ix.BlockSize, ix.Headers, ix.Distinct, ix.Records = ft.blockSize, ft.headers, ft.distinct, ft.records
	ix.ids = ft.ids
	for t, meta := range ft.tables {
		dec, err := newDecoder(meta.code)
		if err != nil {
			return ix.corrupt("table %d: Huffman code: %v", t, err)
		}
		tb := table{tableMeta: meta, dec: dec}
		tb.index()
		ix.tables = append(ix.tables, tb)
	}
	if useMap {
		ix.data, ix.unmap, err = mapFile(ix.file, ix.Size)
		if err != nil {
			return err
		}
	}
	return nil
}

func (ix *Index) hasMagic() bool {
	b := make([]byte, len(magic))
	_, err := ix.file.ReadAt(b, 0)
	return err == nil && string(b) == magic
}

// index builds the block directory of a table.
func (t *table) index() {
	n := len(t.last)
	b := max(bits.Len(uint(n)), 1)
	t.shift = uint(64 - b)
	t.dir = make([]uint32, 1<<b+1)
	p := 0
	for i, v := range t.last {
		for top := int(v >> t.shift); p <= top; p++ {
			t.dir[p] = uint32(i)
		}
	}
	for ; p < len(t.dir); p++ {
		t.dir[p] = uint32(n)
	}
}

// firstBlock returns the first block whose last value is ≥ v (or the
// number of blocks).
func (t *table) firstBlock(v uint64) int {
	p := v >> t.shift
	return t.searchBlock(v, int(t.dir[p]), int(t.dir[p+1]))
}

// searchBlock returns the first block in [lo, hi] whose last value is ≥ v,
// given that those before lo are below v and hi is ≥ v or the end.
func (t *table) searchBlock(v uint64, lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.last[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Close releases the file.
func (ix *Index) Close() error {
	err := ix.unmap()
	if cerr := ix.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// MemoryBytes returns the size of the in-memory directory, with the
// tables' Huffman decoding tables.
func (ix *Index) MemoryBytes() int64 {
	var n int64
	for _, t := range ix.tables {
		n += int64(8*len(t.last) + 8*len(t.offs) + 4*len(t.dir) + len(t.code) + 8*len(t.dec.table) + len(t.dec.lens))
	}
	return n + int64(8*len(ix.ids.offs))
}

// block returns block i of a section: a slice of the map, or read into buf.
func (ix *Index) block(s *section, i int, buf *[]byte) ([]byte, error) {
	if ix.data != nil {
		return s.block(ix.data, i), nil
	}
	n := int(s.offs[i+1] - s.offs[i])
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := ix.file.ReadAt(b, int64(s.off+s.offs[i])); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ix.corrupt("block beyond the end of the file")
		}
		return nil, err
	}
	return b, nil
}

// scratch is what one goroutine needs to read an index.
type readScratch struct {
	scratch
	buf []byte
}

// values decodes block i of table t.
func (ix *Index) values(t, i int, sc *readScratch) ([]uint64, error) {
	return ix.valuesUntil(t, i, ^uint64(0), sc)
}

// valuesUntil decodes block i of table t up to the first value above
// limit; the block's checksum is checked whole.
func (ix *Index) valuesUntil(t, i int, limit uint64, sc *readScratch) ([]uint64, error) {
	return ix.decodeBlock(t, i, limit, false, sc)
}

// decodeBlock is valuesUntil, without the checksum when checked says it was
// verified before.
func (ix *Index) decodeBlock(t, i int, limit uint64, checked bool, sc *readScratch) ([]uint64, error) {
	tb := &ix.tables[t]
	b, err := ix.block(&tb.section, i, &sc.buf)
	if err != nil {
		return nil, err
	}
	n := min(ix.BlockSize, int(ix.Distinct)-i*ix.BlockSize)
	decode := tb.dec.decode
	if checked {
		decode = tb.dec.decodeChecked
	}
	vals, err := decode(b, n, limit, &sc.scratch)
	if err != nil {
		return nil, ix.corrupt("table %d, block %d: %v", t, i, err)
	}
	if len(vals) == n && vals[n-1] != tb.last[i] {
		return nil, ix.corrupt("table %d, block %d does not match the directory", t, i)
	}
	return vals, nil
}

// idBlock checks id block i and returns its entries' bytes (without the
// checksum).
func (ix *Index) idBlock(i int, sc *readScratch) ([]byte, error) {
	b, err := ix.block(&ix.ids, i, &sc.buf)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 || crcOf(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, ix.corrupt("id block %d: checksum mismatch", i)
	}
	return b[:len(b)-4], nil
}

// nextIDs parses one entry of an id block: its ids are appended to dst.
func nextIDs(b []byte, dst [][]byte) ([][]byte, []byte, bool) {
	for {
		h, k := binary.Uvarint(b)
		if k <= 0 || h>>1 > uint64(len(b)-k) {
			return dst, nil, false
		}
		end := k + int(h>>1)
		dst = append(dst, b[k:end])
		b = b[end:]
		if h&1 == 0 {
			return dst, b, true
		}
	}
}

// skipIDs skips one entry of an id block.
func skipIDs(b []byte) ([]byte, bool) {
	for {
		h, k := uint64(0), 1
		if len(b) > 0 && b[0] < 0x80 {
			h = uint64(b[0]) // ids shorter than 64 bytes
		} else if h, k = binary.Uvarint(b); k <= 0 {
			return nil, false
		}
		if h>>1 > uint64(len(b)-k) {
			return nil, false
		}
		b = b[k+int(h>>1):]
		if h&1 == 0 {
			return b, true
		}
	}
}

// tableSeq streams the values of table t.
func (ix *Index) tableSeq(t int) valueSeq {
	return func(yield func(uint64) bool) error {
		var sc readScratch
		for i := range ix.tables[t].blocks() {
			vals, err := ix.values(t, i, &sc)
			if err != nil {
				return err
			}
			for _, v := range vals {
				if !yield(v) {
					return nil
				}
			}
		}
		return nil
	}
}

// entrySeq streams the fingerprints with their ids.
func (ix *Index) entrySeq() entrySeq {
	return func(yield func(uint64, [][]byte) bool) error {
		var sc, idsc readScratch
		var ids [][]byte
		for i := range ix.tables[0].blocks() {
			vals, err := ix.values(0, i, &sc)
			if err != nil {
				return err
			}
			b, err := ix.idBlock(i, &idsc)
			if err != nil {
				return err
			}
			for _, v := range vals {
				var ok bool
				ids, b, ok = nextIDs(b, ids[:0])
				if !ok || len(ids) == 0 {
					return ix.corrupt("id block %d is malformed", i)
				}
				if !yield(v, ids) {
					return nil
				}
			}
			if len(b) != 0 {
				return ix.corrupt("id block %d holds more entries than its fingerprints", i)
			}
		}
		return nil
	}
}
