package bandindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/disk"
)

// A run file (NNNNNN.run), little-endian:
//
//	preamble  magic "NDUPRUN\x00", u32 version, u32 zero          16 bytes
//	blocks    each the zstd frame of its entries (below)
//	footer    u32 version, u64 records, u32 blocks; for each block: uvarint
//	          length and bytes of its first key, u64 offset, u32 compressed
//	          length, u32 entries length, u32 entries, u64 XXH64 of the
//	          compressed bytes; uvarint length and bytes of the last key
//	trailer   u64 footer offset, u64 footer length, u64 XXH64 of the footer,
//	          magic "NDUPEND\x00"                                32 bytes
//
// A block's entries, in (key, id) order, each: uvarint bytes shared with
// the key before it in the block, uvarint length and bytes of the rest of
// the key, uvarint length and bytes of the id.

const (
	runMagic     = "NDUPRUN\x00"
	endMagic     = "NDUPEND\x00"
	preambleSize = 16
	trailerSize  = 32
	// blockTarget is the size of a block's entries before compression.
	blockTarget = 64 << 10
	// maxBlock bounds a block's entries (one entry may pass blockTarget),
	// so that a damaged length can't ask for any amount of memory.
	maxBlock = 1 << 30
)

var (
	codecOnce sync.Once
	encoder   *zstd.Encoder
	decoder   *zstd.Decoder
)

// codecs returns the zstd encoder and decoder shared by every run: their
// EncodeAll and DecodeAll may be called from many goroutines.
func codecs() (*zstd.Encoder, *zstd.Decoder) {
	codecOnce.Do(func() {
		var err error
		if encoder, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1)); err != nil {
			panic(err)
		}
		if decoder, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlock)); err != nil {
			panic(err)
		}
	})
	return encoder, decoder
}

// blockMeta is what the footer says of a block; it is held in memory while
// the run is open.
type blockMeta struct {
	first  []byte
	off    uint64
	length uint32
	raw    uint32
	count  uint32
	sum    uint64
}

// runWriter writes the entries of a run, in (key, id) order, block by block.
type runWriter struct {
	w       *bufio.Writer
	off     uint64
	raw     []byte
	comp    []byte
	blocks  []blockMeta
	first   []byte
	count   uint32
	prevKey []byte
	prevID  []byte
	started bool
	records uint64
	err     error
}

func newRunWriter(f io.Writer) *runWriter {
	w := &runWriter{w: bufio.NewWriterSize(f, 1<<20)}
	var pre [preambleSize]byte
	copy(pre[:], runMagic)
	binary.LittleEndian.PutUint32(pre[8:], Version)
	w.write(pre[:])
	return w
}

func (w *runWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.w.Write(b)
	w.off += uint64(len(b))
}

// add appends an entry; entries must come in strictly ascending (key, id)
// order.
func (w *runWriter) add(key, id []byte) error {
	if w.started {
		c := bytes.Compare(key, w.prevKey)
		if c < 0 || c == 0 && bytes.Compare(id, w.prevID) <= 0 {
			return fmt.Errorf("bandindex: entry %q %q after %q %q: out of order", key, id, w.prevKey, w.prevID)
		}
	}
	shared := 0
	if w.count == 0 {
		w.first = append(w.first[:0], key...)
	} else {
		for shared < len(key) && shared < len(w.prevKey) && key[shared] == w.prevKey[shared] {
			shared++
		}
	}
	w.raw = binary.AppendUvarint(w.raw, uint64(shared))
	w.raw = binary.AppendUvarint(w.raw, uint64(len(key)-shared))
	w.raw = append(w.raw, key[shared:]...)
	w.raw = binary.AppendUvarint(w.raw, uint64(len(id)))
	w.raw = append(w.raw, id...)
	w.count++
	w.records++
	w.prevKey = append(w.prevKey[:0], key...)
	w.prevID = append(w.prevID[:0], id...)
	w.started = true
	if len(w.raw) >= blockTarget {
		w.flushBlock()
	}
	return w.err
}

func (w *runWriter) flushBlock() {
	if w.count == 0 {
		return
	}
	if len(w.raw) > maxBlock {
		w.err = fmt.Errorf("bandindex: a block of %d bytes: a key or id is too long", len(w.raw))
		return
	}
	enc, _ := codecs()
	w.comp = enc.EncodeAll(w.raw, w.comp[:0])
	w.blocks = append(w.blocks, blockMeta{
		first:  bytes.Clone(w.first),
		off:    w.off,
		length: uint32(len(w.comp)),
		raw:    uint32(len(w.raw)),
		count:  w.count,
		sum:    xxhash.Sum64(w.comp),
	})
	w.write(w.comp)
	w.raw, w.count = w.raw[:0], 0
}

// finish writes the last block, the footer and the trailer, and flushes.
// It returns what the manifest says of the run.
func (w *runWriter) finish(name string) (runEntry, error) {
	w.flushBlock()
	footer := marshalFooter(w.records, w.blocks, w.prevKey)
	footerOff := w.off
	w.write(footer)
	var tr [trailerSize]byte
	binary.LittleEndian.PutUint64(tr[0:], footerOff)
	binary.LittleEndian.PutUint64(tr[8:], uint64(len(footer)))
	sum := xxhash.Sum64(footer)
	binary.LittleEndian.PutUint64(tr[16:], sum)
	copy(tr[24:], endMagic)
	w.write(tr[:])
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return runEntry{name: name, records: w.records, bytes: w.off, footer: sum}, w.err
}

func marshalFooter(records uint64, blocks []blockMeta, last []byte) []byte {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.LittleEndian.AppendUint64(b, records)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(blocks)))
	for _, bl := range blocks {
		b = binary.AppendUvarint(b, uint64(len(bl.first)))
		b = append(b, bl.first...)
		b = binary.LittleEndian.AppendUint64(b, bl.off)
		b = binary.LittleEndian.AppendUint32(b, bl.length)
		b = binary.LittleEndian.AppendUint32(b, bl.raw)
		b = binary.LittleEndian.AppendUint32(b, bl.count)
		b = binary.LittleEndian.AppendUint64(b, bl.sum)
	}
	b = binary.AppendUvarint(b, uint64(len(last)))
	return append(b, last...)
}

// run is an open run file: its block index in memory, its blocks read as
// needed.
type run struct {
	name    string
	path    string
	f       disk.ReadFile
	records uint64
	blocks  []blockMeta
	last    []byte
	footer  uint64 // XXH64 of the footer
}

// openRun opens a run file and checks its preamble, trailer and footer.
func openRun(fsys fileSystem, path, name string) (*run, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := readRun(f, path, name)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func readRun(f disk.ReadFile, path, name string) (*run, error) {
	size := f.Size()
	if size < preambleSize+trailerSize {
		return nil, damaged(path, "%d bytes: too short for a run file (truncated?)", size)
	}
	var pre [preambleSize]byte
	if _, err := f.ReadAt(pre[:], 0); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if string(pre[:8]) != runMagic {
		return nil, damaged(path, "not a bandindex run file")
	}
	if v := binary.LittleEndian.Uint32(pre[8:]); v != Version {
		return nil, damaged(path, "run format version %d; this bandindex reads version %d", v, Version)
	}
	var tr [trailerSize]byte
	if _, err := f.ReadAt(tr[:], size-trailerSize); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if string(tr[24:]) != endMagic {
		return nil, damaged(path, "no end mark: truncated or damaged")
	}
	off, length, sum := binary.LittleEndian.Uint64(tr[0:]), binary.LittleEndian.Uint64(tr[8:]), binary.LittleEndian.Uint64(tr[16:])
	if off < preambleSize || off+length != uint64(size-trailerSize) {
		return nil, damaged(path, "footer out of place: damaged")
	}
	footer := make([]byte, length)
	if _, err := f.ReadAt(footer, int64(off)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if xxhash.Sum64(footer) != sum {
		return nil, damaged(path, "footer checksum mismatch: damaged")
	}
	r := &run{name: name, path: path, f: f, footer: sum}
	fr := &disk.Footer{B: footer}
	if v := fr.U32(); v != Version && fr.Err == nil {
		return nil, damaged(path, "footer of format version %d: damaged", v)
	}
	r.records = fr.U64()
	n := fr.U32()
	if fr.Err == nil && uint64(n) > length {
		return nil, damaged(path, "damaged footer: too many blocks")
	}
	r.blocks = make([]blockMeta, 0, n)
	next := uint64(preambleSize)
	var total uint64
	for i := uint32(0); i < n && fr.Err == nil; i++ {
		b := blockMeta{first: fr.Bytes(), off: fr.U64(), length: fr.U32(), raw: fr.U32(), count: fr.U32(), sum: fr.U64()}
		if fr.Err != nil {
			break
		}
		if b.off != next || b.count == 0 || b.raw > maxBlock {
			return nil, damaged(path, "damaged footer: block %d", i)
		}
		if i > 0 && bytes.Compare(b.first, r.blocks[i-1].first) < 0 {
			return nil, damaged(path, "damaged footer: block %d out of order", i)
		}
		next += uint64(b.length)
		total += uint64(b.count)
		r.blocks = append(r.blocks, b)
	}
	r.last = fr.Bytes()
	if fr.Err != nil {
		return nil, damaged(path, "damaged footer: %v", fr.Err)
	}
	if next != off || total != r.records {
		return nil, damaged(path, "damaged footer: blocks don't add up")
	}
	return r, nil
}

// readBlock reads block i, checks it and returns its entries, decompressed
// into buf's space.
func (r *run) readBlock(i int, comp, buf []byte) (entries, compBuf []byte, err error) {
	b := &r.blocks[i]
	if cap(comp) < int(b.length) {
		comp = make([]byte, b.length)
	}
	comp = comp[:b.length]
	if _, err := r.f.ReadAt(comp, int64(b.off)); err != nil {
		return nil, comp, fmt.Errorf("%s: block %d: %w", r.path, i, err)
	}
	if xxhash.Sum64(comp) != b.sum {
		return nil, comp, damaged(r.path, "block %d: checksum mismatch: damaged", i)
	}
	_, dec := codecs()
	out, err := dec.DecodeAll(comp, buf[:0])
	if err != nil {
		return nil, comp, damaged(r.path, "block %d: %v: damaged", i, err)
	}
	if len(out) != int(b.raw) {
		return nil, comp, damaged(r.path, "block %d: %d bytes of entries, the footer says %d: damaged", i, len(out), b.raw)
	}
	return out, comp, nil
}

// cursor reads a run's entries in order, one block in memory.
type cursor struct {
	r     *run
	block int // the block loaded, or -1
	comp  []byte
	buf   []byte // the block's entries
	data  []byte // the rest of them
	left  uint32 // entries left in the block
	key   []byte // the current entry's
	id    []byte // the current entry's, within the block's bytes
	valid bool
	err   error
}

func newCursor(r *run) *cursor { return &cursor{r: r, block: -1} }

// load reads block i and moves to its first entry.
func (c *cursor) load(i int) bool {
	if i >= len(c.r.blocks) {
		c.valid = false
		return false
	}
	data, comp, err := c.r.readBlock(i, c.comp, c.buf)
	c.comp = comp
	if err != nil {
		c.err, c.valid = err, false
		return false
	}
	c.block, c.buf, c.data, c.left = i, data, data, c.r.blocks[i].count
	c.key = c.key[:0]
	return c.next()
}

// next moves to the next entry, loading the next block when the current one
// is done. It returns false at the end of the run or on an error (c.err).
func (c *cursor) next() bool {
	if c.err != nil {
		return false
	}
	if c.left == 0 {
		return c.load(c.block + 1)
	}
	shared, ok1 := c.uvarint()
	rest, ok2 := c.uvarint()
	if !ok1 || !ok2 || shared > uint64(len(c.key)) || rest > uint64(len(c.data)) {
		return c.damaged()
	}
	c.key = append(c.key[:shared], c.data[:rest]...)
	c.data = c.data[rest:]
	n, ok := c.uvarint()
	if !ok || n > uint64(len(c.data)) {
		return c.damaged()
	}
	c.id, c.data = c.data[:n:n], c.data[n:]
	c.left--
	if c.left == 0 && len(c.data) != 0 {
		return c.damaged()
	}
	c.valid = true
	return true
}

func (c *cursor) uvarint() (uint64, bool) {
	v, k := binary.Uvarint(c.data)
	if k <= 0 {
		return 0, false
	}
	c.data = c.data[k:]
	return v, true
}

func (c *cursor) damaged() bool {
	c.err = damaged(c.r.path, "block %d: entries don't decode: damaged", c.block)
	c.valid = false
	return false
}

// seek moves forward to the first entry whose key is at least key. Blocks
// that end before key are passed over without being read.
func (c *cursor) seek(key []byte) bool {
	if c.err != nil {
		return false
	}
	if c.block >= 0 && !c.valid {
		return false // at the end
	}
	if c.valid && bytes.Compare(c.key, key) >= 0 {
		return true
	}
	// The last block whose first key is below key may end with key's
	// entries; the blocks before it can't hold them.
	i := max(0, sort.Search(len(c.r.blocks), func(i int) bool { return bytes.Compare(c.r.blocks[i].first, key) >= 0 })-1)
	if i > c.block && !c.load(i) {
		return false
	}
	for bytes.Compare(c.key, key) < 0 {
		if !c.next() {
			return false
		}
	}
	return true
}
