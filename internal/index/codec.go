package index

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"
)

// A table is a sorted list of distinct 64-bit values (permuted
// fingerprints), stored in blocks of up to blockSize values (the directory
// knows how many each block holds):
//
//	u64   the first value, whole (little-endian)
//	…     the positions: for each following value, the position d (0 = the
//	      first bit) of its first bit that differs from its predecessor,
//	      in the table's Huffman code, first bit first; zero bits up to
//	      the next byte
//	…     the remainders: for each following value its 63-d bits after
//	      position d, first bit first (bit d itself is 1: the values
//	      ascend, so the predecessor has 0 there); zero bits up to the
//	      next byte
//	u32   CRC-32C of the block up to here (little-endian)
//
// The Huffman code, one per table, is stored with the table's directory as
// the code length of each position 0..63 (all of them, so any block can be
// coded) and built from the histogram of all the table's positions; codes
// are canonical and at most maxCodeLen bits long. For sorted uniform values
// the positions gather around log2(n) and take about 2-3 bits each; the
// remainders take 63-d bits: about 64 - log2(n) + 2 bits per value in all,
// against 64 raw.
//
// Positions and remainders are kept apart so that decoding is two tight
// loops: the positions a few at a time, by looking the next maxCodeLen bits
// up in a table of what they start with (up to 4 codes); then the values,
// each from its predecessor, its position and one unaligned load.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	// maxCodeLen bounds the Huffman code lengths; decoding looks up
	// maxCodeLen bits at a time.
	maxCodeLen = 11
	// blockOverhead is a block's bytes besides its codes and remainders:
	// the first value and the checksum.
	blockOverhead = 8 + 4
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

// buildCode returns the code lengths of a Huffman code for a histogram of
// positions: every position gets a code (counted at least once), none
// longer than maxCodeLen (the counts are flattened until none is).
func buildCode(h *[64]uint64) []byte {
	var w [64]uint64
	for s, c := range h {
		w[s] = max(c, 1)
	}
	for {
		lens := huffmanLengths(&w)
		if slicesMax(lens[:]) <= maxCodeLen {
			return lens[:]
		}
		for s := range w {
			w[s] = w[s]/2 + 1
		}
	}
}

func slicesMax(b []byte) byte {
	m := byte(0)
	for _, x := range b {
		m = max(m, x)
	}
	return m
}

// huffmanLengths returns the depth of each symbol in a Huffman tree of the
// weights: the two lightest trees are joined until one is left (ties go to
// the tree made first).
func huffmanLengths(w *[64]uint64) [64]byte {
	type node struct {
		w      uint64
		parent int
	}
	nodes := make([]node, 0, 2*len(w)-1)
	live := make([]int, 0, len(w))
	for s, x := range w {
		nodes = append(nodes, node{x, -1})
		live = append(live, s)
	}
	for len(live) > 1 {
		// The two lightest live trees, a before b.
		a, b := -1, -1
		for i, n := range live {
			switch {
			case a < 0 || nodes[n].w < nodes[live[a]].w:
				a, b = i, a
			case b < 0 || nodes[n].w < nodes[live[b]].w:
				b = i
			}
		}
		joined := len(nodes)
		nodes = append(nodes, node{nodes[live[a]].w + nodes[live[b]].w, -1})
		nodes[live[a]].parent, nodes[live[b]].parent = joined, joined
		live[min(a, b)] = joined
		live = append(live[:max(a, b)], live[max(a, b)+1:]...)
	}
	depth := make([]byte, len(nodes))
	for i := len(nodes) - 2; i >= 0; i-- {
		depth[i] = depth[nodes[i].parent] + 1
	}
	var lens [64]byte
	copy(lens[:], depth)
	return lens
}

// canonical returns the canonical codes of the code lengths: by length,
// then by symbol, each the previous one plus one, shifted left as the
// length grows. It refuses lengths that are not a complete code of at most
// maxCodeLen bits (so that every maxCodeLen bits start with some code).
func canonical(lens []byte) ([64]uint16, error) {
	var codes [64]uint16
	if len(lens) != 64 {
		return codes, errors.New("not 64 code lengths")
	}
	kraft := 0
	for _, l := range lens {
		if l < 1 || l > maxCodeLen {
			return codes, errors.New("a code length out of range")
		}
		kraft += 1 << (maxCodeLen - l)
	}
	if kraft != 1<<maxCodeLen {
		return codes, errors.New("code lengths that are not a complete code")
	}
	code := 0
	for l := byte(1); l <= maxCodeLen; l++ {
		for s, sl := range lens {
			if sl == l {
				codes[s] = uint16(code)
				code++
			}
		}
		code <<= 1
	}
	return codes, nil
}

// encoder writes the blocks of one table.
type encoder struct {
	lens  []byte
	codes [64]uint16
	bits  bitWriter
}

func newEncoder(lens []byte) (*encoder, error) {
	codes, err := canonical(lens)
	if err != nil {
		return nil, err
	}
	return &encoder{lens: lens, codes: codes}, nil
}

// appendBlock appends the block of vals (sorted, distinct, at least one).
func (e *encoder) appendBlock(dst []byte, vals []uint64) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint64(dst, vals[0])
	e.bits.reset()
	for i := 1; i < len(vals); i++ {
		d := position(vals[i-1], vals[i])
		e.bits.write(uint64(e.codes[d]), int(e.lens[d]))
	}
	dst = e.bits.appendTo(dst)
	e.bits.reset()
	for i := 1; i < len(vals); i++ {
		n := 63 - position(vals[i-1], vals[i])
		e.bits.write(vals[i]&(1<<n-1), n)
	}
	dst = e.bits.appendTo(dst)
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
//
// Entry p of its table tells what maxCodeLen bits p start with: up to 4
// whole codes, their symbols in bytes 0-3, their number in byte 4, their
// bits in byte 5 and the bits of the first code in byte 6.
type decoder struct {
	table [1 << maxCodeLen]uint64
	lens  [64]uint8
}

func newDecoder(lens []byte) (*decoder, error) {
	codes, err := canonical(lens)
	if err != nil {
		return nil, err
	}
	// The symbol each maxCodeLen bits start with.
	var first [1 << maxCodeLen]byte
	for s, c := range codes {
		shift := maxCodeLen - lens[s]
		for p := int(c) << shift; p < int(c+1)<<shift; p++ {
			first[p] = byte(s)
		}
	}
	d := &decoder{}
	copy(d.lens[:], lens)
	for p := range d.table {
		var e uint64
		used, n := 0, 0
		for n < 4 {
			s := first[p<<used&(1<<maxCodeLen-1)]
			l := int(lens[s])
			if used+l > maxCodeLen {
				break
			}
			e |= uint64(s) << (8 * n)
			if n == 0 {
				e |= uint64(l) << 48
			}
			n++
			used += l
		}
		d.table[p] = e | uint64(n)<<32 | uint64(used)<<40
	}
	return d, nil
}

// scratch is what one goroutine needs to decode blocks.
type scratch struct {
	syms []byte
	vals []uint64
}

// checkBlock verifies a block's checksum.
func checkBlock(b []byte) error {
	if len(b) < blockOverhead || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return errCorrupt
	}
	return nil
}

// load returns the 64 bits of b from bit pos on, first bit first, zeros
// past its end. The decoding loops have their own copy of its usual case,
// which inlines where load does not.
func load(b []byte, pos uint) uint64 {
	var c [9]byte
	if i := pos >> 3; i < uint(len(b)) {
		copy(c[:], b[i:])
	}
	return binary.BigEndian.Uint64(c[:])<<(pos&7) | uint64(c[8])<<(pos&7)>>8
}

// decode checks block b of n values and returns its values (in sc.vals) up
// to the first one above limit.
func (d *decoder) decode(b []byte, n int, limit uint64, sc *scratch) ([]uint64, error) {
	if err := checkBlock(b); err != nil {
		return nil, err
	}
	return d.decodeChecked(b, n, limit, sc)
}

// decodeChecked is decode for a block whose checksum was verified before.
func (d *decoder) decodeChecked(b []byte, n int, limit uint64, sc *scratch) ([]uint64, error) {
	if len(b) < blockOverhead || n < 1 {
		return nil, errCorrupt
	}
	v := binary.LittleEndian.Uint64(b)
	if cap(sc.vals) < n {
		sc.vals = make([]uint64, max(n, 256))
	}
	vals := sc.vals[:n]
	vals[0] = v
	m := n - 1
	if m == 0 {
		if len(b) != blockOverhead {
			return nil, errCorrupt
		}
		return vals, nil
	}
	if cap(sc.syms) < m+16 {
		sc.syms = make([]byte, max(m+16, 256))
	}
	syms, pos := d.positions(sc.syms[:m+16], m, b)
	// The remainders, from the next byte on.
	pos = (pos + 7) &^ 7
	end := 8 * uint(len(b)-4)
	if pos > end {
		return nil, errCorrupt
	}
	k, pos := remainders(vals[1:], v, syms, b, pos, limit)
	if k < m {
		return vals[:k+1], nil
	}
	if (pos+7)&^7 != end {
		return nil, errCorrupt
	}
	return vals, nil
}

// positions decodes m positions from b, bit 64 on, into syms (m+16 long:
// the look-ups run past the m-th code), and returns them and the bit after
// them.
func (d *decoder) positions(syms []byte, m int, b []byte) ([]byte, uint) {
	pos := uint(64)
	j := 0
	// While 9 bytes are left from pos on, with load written out (a call
	// in the loop costs it its registers)...
	for j < m {
		i := pos >> 3
		if i+9 > uint(len(b)) {
			break
		}
		c := (*[9]byte)(b[i:])
		w := binary.BigEndian.Uint64(c[:])<<(pos&7) | uint64(c[8])<<(pos&7)>>8
		j, pos = d.lookup4(syms, j, w, pos)
	}
	// ... then near the end.
	for j < m {
		j, pos = d.lookup4(syms, j, load(b, pos), pos)
	}
	// The codes decoded past the m-th were not positions.
	for _, s := range syms[m:j] {
		pos -= uint(d.lens[s&63])
	}
	return syms[:m], pos
}

// lookup4 decodes the codes that w, from bit pos on, starts with by four
// look-ups of up to four codes each (at most 44 of its bits) into syms from
// j on, and returns the new j and pos.
func (d *decoder) lookup4(syms []byte, j int, w uint64, pos uint) (int, uint) {
	for range 4 {
		e := d.table[w>>(64-maxCodeLen)]
		binary.LittleEndian.PutUint32(syms[j:], uint32(e))
		j += int(e >> 32 & 7)
		l := uint(e>>40) & 15
		w <<= l
		pos += l
	}
	return j, pos
}

// remainders decodes the values after v from their positions syms and
// their remainders in b, bit pos on, into vals; it stops after the first
// value above limit. It returns the number of values decoded and the bit
// after their remainders.
func remainders(vals []uint64, v uint64, syms []byte, b []byte, pos uint, limit uint64) (int, uint) {
	vals = vals[:len(syms)]
	j := 0
	// While 9 bytes are left from pos on (load written out: it does not
	// inline, and its call costs the loop its registers).
	for ; j < len(syms); j++ {
		i := pos >> 3
		if i+9 > uint(len(b)) {
			break
		}
		c := (*[9]byte)(b[i:])
		sh := pos & 7
		d := uint(syms[j]) & 63
		pos += 63 - d
		v = next(v, binary.BigEndian.Uint64(c[:])<<sh|uint64(c[8])<<sh>>8, d)
		vals[j] = v
		if v > limit {
			return j + 1, pos
		}
	}
	for ; j < len(syms); j++ {
		d := uint(syms[j]) & 63
		v = next(v, load(b, pos), d)
		pos += 63 - d
		vals[j] = v
		if v > limit {
			return j + 1, pos
		}
	}
	return len(syms), pos
}

// next returns the value after v whose first bit that differs from v's is
// d and whose bits after d are the top of w: the d bits before d are v's,
// bit d is 1 (v's is 0); every shift is below 64.
func next(v, w uint64, d uint) uint64 {
	return v&^(^uint64(0)>>d) | (w>>1|1<<63)>>d
}

// crcOf returns the CRC-32C of b.
func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
