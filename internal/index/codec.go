package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// A table is a sorted list of distinct 64-bit values (permuted
// fingerprints), stored in blocks of up to blockSize values:
//
//	u16   n, the number of values (≥ 1)
//	u8    mode: 0 the positions are Huffman coded, 1 they are bytes
//	u64   the first value, whole
//	u16   length of the positions     (when n > 1)
//	…     the n-1 positions: for each following value, the position d
//	      (0 = the first bit) of its first bit that differs from its
//	      predecessor; huff0 1X stream with the table's code, or bytes
//	…     the remainders: for each following value its 63-d bits after
//	      position d, packed first bit first (bit d itself is 1: the
//	      values ascend, so the predecessor has 0 there)
//	u32   CRC-32C of the block up to here
//
// All integers are little-endian. One Huffman code per table, stored with
// the table's directory, is built from the histogram of all its positions
// (every position 0..63 included, so any block can use it). For sorted
// uniform values the positions gather around log2(n) and take about 2-3
// bits each; the remainders take 63-d bits: about 64 - log2(n) + 2 bits
// per value in all, against 64 raw.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	modeHuffman = 0
	modeRaw     = 1
	// blockHeader is n, mode and the first value.
	blockHeader = 2 + 1 + 8
)

// errCorrupt is wrapped into the messages about damaged blocks.
var errCorrupt = errors.New("damaged")

// position returns the first bit (from the top) where a and b differ; a != b.
func position(a, b uint64) int { return bits.LeadingZeros64(a ^ b) }

// histogram adds the positions of a sorted run of values, cut into blocks of
// blockSize, to h.
func histogram(h *[64]uint64, vals []uint64, blockSize int) {
	for i := 1; i < len(vals); i++ {
		if i%blockSize != 0 {
			h[position(vals[i-1], vals[i])]++
		}
	}
}

// buildCode returns the serialised huff0 code for a histogram of positions,
// or nil when huff0 declines (the blocks are then written raw).
func buildCode(h *[64]uint64) []byte {
	var total uint64
	for _, c := range h {
		total += c
	}
	// A sample whose histogram is proportional to h, every position at
	// least once, within huff0's block limit.
	const sampleSize = 60000
	var sample []byte
	for s, c := range h {
		n := 1
		if total > 0 {
			n += int(c * sampleSize / total)
		}
		for range n {
			sample = append(sample, byte(s))
		}
	}
	if total == 0 {
		for range 200 {
			sample = append(sample, 0)
		}
	}
	var s huff0.Scratch
	s.Reuse = huff0.ReusePolicyNone
	if _, _, err := huff0.Compress1X(sample, &s); err != nil || len(s.OutTable) == 0 {
		return nil
	}
	return append([]byte(nil), s.OutTable...)
}

// encoder writes the blocks of one table.
type encoder struct {
	scratch *huff0.Scratch // nil: every block raw
	syms    []byte
	bits    bitWriter
}

func newEncoder(code []byte) (*encoder, error) {
	e := &encoder{}
	if code != nil {
		s, _, err := huff0.ReadTable(code, nil)
		if err != nil {
			return nil, err
		}
		// ReadTable also sets the code as the one ReusePolicyMust
		// compresses with.
		e.scratch = s
	}
	return e, nil
}

// appendBlock appends the block of vals (sorted, distinct, 1 to 65535).
func (e *encoder) appendBlock(dst []byte, vals []uint64) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(vals)))
	dst = append(dst, modeRaw)
	dst = binary.LittleEndian.AppendUint64(dst, vals[0])
	if len(vals) > 1 {
		e.syms = e.syms[:0]
		e.bits.reset()
		for i := 1; i < len(vals); i++ {
			d := position(vals[i-1], vals[i])
			e.syms = append(e.syms, byte(d))
			n := 63 - d
			e.bits.write(vals[i]&(1<<n-1), n)
		}
		syms := e.syms
		if e.scratch != nil {
			e.scratch.Reuse = huff0.ReusePolicyMust
			if out, reused, err := huff0.Compress1X(e.syms, e.scratch); err == nil && reused {
				syms = out
				dst[start+2] = modeHuffman
			}
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(len(syms)))
		dst = append(dst, syms...)
		dst = e.bits.appendTo(dst)
	}
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// bitWriter packs values first bit first.
type bitWriter struct {
	out []byte
	acc uint64 // bits left-aligned
	n   int    // bits in acc
}

func (w *bitWriter) reset() { w.out, w.acc, w.n = w.out[:0], 0, 0 }

// write appends the n low bits of v (the others are zero), n ≤ 64.
func (w *bitWriter) write(v uint64, n int) {
	if n == 0 {
		return
	}
	free := 64 - w.n
	if n < free {
		w.acc |= v << (free - n)
		w.n += n
		return
	}
	w.acc |= v >> (n - free)
	w.out = binary.BigEndian.AppendUint64(w.out, w.acc)
	w.n = n - free
	w.acc = 0
	if w.n > 0 {
		w.acc = v << (64 - w.n)
	}
}

// appendTo appends the packed bits, the last byte padded with zeros.
func (w *bitWriter) appendTo(dst []byte) []byte {
	dst = append(dst, w.out...)
	for i := 0; i < (w.n+7)/8; i++ {
		dst = append(dst, byte(w.acc>>(56-8*i)))
	}
	return dst
}

// decoder reads the blocks of one table. It is safe for concurrent use;
// each goroutine brings its own scratch.
type decoder struct {
	huff *huff0.Decoder // nil when the table has no code
}

func newDecoder(code []byte) (*decoder, error) {
	if code == nil {
		return &decoder{}, nil
	}
	s, _, err := huff0.ReadTable(code, nil)
	if err != nil {
		return nil, err
	}
	return &decoder{huff: s.Decoder()}, nil
}

// scratch is what one goroutine needs to decode blocks.
type scratch struct {
	syms []byte
	vals []uint64
}

// checkBlock verifies a block's checksum and returns its value count.
func checkBlock(b []byte) (int, error) {
	if len(b) < blockHeader+4 {
		return 0, errCorrupt
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return 0, errCorrupt
	}
	n := int(binary.LittleEndian.Uint16(b))
	if n == 0 {
		return 0, errCorrupt
	}
	return n, nil
}

// decode checks block b and returns its values (in sc.vals) up to the first
// one above limit, and the number of values the block holds.
func (d *decoder) decode(b []byte, limit uint64, sc *scratch) ([]uint64, int, error) {
	n, err := checkBlock(b)
	if err != nil {
		return nil, 0, err
	}
	body := b[:len(b)-4]
	v := binary.LittleEndian.Uint64(body[3:])
	vals := append(sc.vals[:0], v)
	if n == 1 {
		sc.vals = vals
		if len(body) != blockHeader {
			return nil, 0, errCorrupt
		}
		return vals, 1, nil
	}
	if len(body) < blockHeader+2 {
		return nil, 0, errCorrupt
	}
	symLen := int(binary.LittleEndian.Uint16(body[blockHeader:]))
	rest := body[blockHeader+2:]
	if symLen > len(rest) {
		return nil, 0, errCorrupt
	}
	symStream, remBytes := rest[:symLen], rest[symLen:]
	var syms []byte
	switch body[2] {
	case modeRaw:
		syms = symStream
	case modeHuffman:
		if d.huff == nil {
			return nil, 0, errCorrupt
		}
		if cap(sc.syms) < n-1 {
			sc.syms = make([]byte, 0, max(n-1, 256))
		}
		syms, err = d.huff.Decompress1X(sc.syms[:0:n-1], symStream)
		if err != nil {
			return nil, 0, errCorrupt
		}
	default:
		return nil, 0, errCorrupt
	}
	if len(syms) != n-1 {
		return nil, 0, errCorrupt
	}
	if cap(vals) < n {
		vals = append(make([]uint64, 0, max(n, 256)), v)
	}
	vals = vals[:n]
	pos := 0
	for j, s := range syms {
		d := uint(s) & 63
		i, sh := pos>>3, uint(pos&7)
		var w uint64
		if i+9 <= len(remBytes) {
			w = binary.BigEndian.Uint64(remBytes[i:])<<sh | uint64(remBytes[i+8])>>(8-sh)
		} else {
			w = loadTail(remBytes, i, sh)
		}
		pos += 63 - int(d)
		// The d bits before position d are v's, bit d is 1 and the 63-d
		// bits after it are the top of w; every shift is below 64.
		v = v&^(^uint64(0)>>d) | (w>>1|1<<63)>>d
		vals[j+1] = v
		if v > limit {
			sc.vals = vals
			return vals[:j+2], n, nil
		}
	}
	if (pos+7)/8 != len(remBytes) {
		return nil, 0, errCorrupt
	}
	sc.vals = vals
	return vals, n, nil
}

// loadTail returns the 64 bits at byte i, bit sh of b, zeros past its end.
func loadTail(b []byte, i int, sh uint) uint64 {
	var w uint64
	for k := range 8 {
		w <<= 8
		if i+k < len(b) {
			w |= uint64(b[i+k])
		}
	}
	var last uint64
	if i+8 < len(b) {
		last = uint64(b[i+8])
	}
	return w<<sh | last>>(8-sh)
}

// crcOf returns the CRC-32C of b.
func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
