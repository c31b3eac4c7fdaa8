package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/record"
)

// File layout (little-endian):
//
//	preamble   magic "NDUPIDX\0", u32 version, u32 zero          16 bytes
//	tables     for each table, its blocks one after another (codec.go)
//	ids        for each block of table 0, an id block: for each of its
//	           fingerprints, its ids (at least one), each as a uvarint
//	           of its length times 2, plus 1 if another id of the
//	           fingerprint follows, then its bytes; then the CRC-32C of
//	           the block
//	footer     the parameters and the directory (below)
//	trailer    u64 footer offset, u64 footer length, u64 XXH64 of the
//	           footer, magic "NDUPEND\0"                          32 bytes
//
// The footer holds: u32 version; u32 f, k, blocks, tables, block size; u64
// distinct fingerprints, u64 records (fingerprint, id); the header lines of
// the records' pipeline (u32 length, text); for each table its data offset
// and length (u64), block count (u32), Huffman code (u32 64, then the code
// length of each position 0..63, a byte each), the last value of every
// block (u64 each) and the offsets of the blocks
// and of the end (u64 each, from the data offset); then the ids section's
// offset, length, block count and offsets likewise.
//
// Table 0 keeps the fingerprints unpermuted (its chosen blocks are the
// first ones), so id block j holds the ids of the fingerprints of table 0's
// block j, in the same order.
//
// Every byte is under a checksum: the footer's is checked when the index is
// opened, each block's when the block is read (and all of them by Check).

const (
	magic        = "NDUPIDX\x00"
	endMagic     = "NDUPEND\x00"
	preambleSize = 16
	trailerSize  = 32
	// Version is the format version this package writes and reads.
	// Version 1 coded the positions with huff0 and gave every block its
	// count and lengths, and every id entry its count.
	Version = 2
)

// section is a run of blocks and where they are.
type section struct {
	off, length uint64
	// offs are the block offsets from off, and the end.
	offs []uint64
}

func (s *section) blocks() int { return len(s.offs) - 1 }

// block returns block i of the section within data (the whole file).
func (s *section) block(data []byte, i int) []byte {
	return data[s.off+s.offs[i] : s.off+s.offs[i+1]]
}

type tableMeta struct {
	section
	code []byte
	last []uint64
}

type footer struct {
	f, k, blocks, blockSize int
	distinct, records       uint64
	headers                 []record.Header
	tables                  []tableMeta
	ids                     section
}

func (ft *footer) marshal() []byte {
	var b []byte
	u32 := func(v int) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	u32(Version)
	u32(ft.f)
	u32(ft.k)
	u32(ft.blocks)
	u32(len(ft.tables))
	u32(ft.blockSize)
	u64(ft.distinct)
	u64(ft.records)
	var hs []string
	for _, h := range ft.headers {
		hs = append(hs, h.String())
	}
	text := strings.Join(hs, "\n")
	u32(len(text))
	b = append(b, text...)
	sec := func(s *section) {
		u64(s.off)
		u64(s.length)
		u32(s.blocks())
	}
	for i := range ft.tables {
		t := &ft.tables[i]
		sec(&t.section)
		u32(len(t.code))
		b = append(b, t.code...)
		for _, v := range t.last {
			u64(v)
		}
		for _, v := range t.offs {
			u64(v)
		}
	}
	sec(&ft.ids)
	for _, v := range ft.ids.offs {
		u64(v)
	}
	return b
}

// parseFooter parses and checks a footer of a file of dataEnd bytes before
// the footer.
func parseFooter(b []byte, dataEnd uint64) (*footer, error) {
	r := &disk.Footer{B: b}
	ft := &footer{}
	if v := r.U32(); v != Version {
		return nil, fmt.Errorf("footer of format version %d; this program reads version %d", v, Version)
	}
	ft.f, ft.k, ft.blocks = int(r.U32()), int(r.U32()), int(r.U32())
	nt := int(r.U32())
	ft.blockSize = int(r.U32())
	ft.distinct, ft.records = r.U64(), r.U64()
	text := string(r.Take(uint64(r.U32())))
	if text != "" {
		for _, line := range strings.Split(text, "\n") {
			h, err := record.ParseHeader([]byte(line))
			if err != nil {
				return nil, fmt.Errorf("header %q: %v", line, err)
			}
			ft.headers = append(ft.headers, h)
		}
	}
	if r.Err == nil && (nt < 1 || nt > 1<<16 || ft.blockSize < 1 || ft.blockSize > 0xffff) {
		return nil, fmt.Errorf("%d tables of blocks of %d: out of range", nt, ft.blockSize)
	}
	sec := func(s *section, n uint64) {
		s.off, s.length = r.U64(), r.U64()
		nb := int(r.U32())
		if r.Err != nil {
			return
		}
		if want := (n + uint64(ft.blockSize) - 1) / uint64(ft.blockSize); uint64(nb) != want {
			r.Err = fmt.Errorf("%d blocks for %d fingerprints in blocks of %d", nb, n, ft.blockSize)
			return
		}
		if s.off < preambleSize || s.off > dataEnd || s.length > dataEnd-s.off {
			r.Err = errors.New("a section lies outside the file")
		}
	}
	offsets := func(s *section, nb int) {
		s.offs = r.U64s(nb + 1)
		if r.Err != nil {
			return
		}
		prev := uint64(0)
		for _, o := range s.offs {
			if o < prev || o > s.length {
				r.Err = errors.New("block offsets out of order")
				return
			}
			prev = o
		}
		if s.offs[0] != 0 || s.offs[nb] != s.length {
			r.Err = errors.New("block offsets do not cover the section")
		}
	}
	for range nt {
		if r.Err != nil {
			break
		}
		var t tableMeta
		sec(&t.section, ft.distinct)
		nb := int((ft.distinct + uint64(ft.blockSize) - 1) / uint64(ft.blockSize))
		t.code = append([]byte(nil), r.Take(uint64(r.U32()))...)
		t.last = r.U64s(nb)
		offsets(&t.section, nb)
		ft.tables = append(ft.tables, t)
	}
	sec(&ft.ids, ft.distinct)
	offsets(&ft.ids, int((ft.distinct+uint64(ft.blockSize)-1)/uint64(ft.blockSize)))
	if r.Err != nil {
		return nil, r.Err
	}
	if len(r.B) != 0 {
		return nil, fmt.Errorf("%d bytes after the footer's fields", len(r.B))
	}
	return ft, nil
}

// preamble returns the first bytes of an index file.
func preamble() []byte {
	b := append([]byte(magic), 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[8:], Version)
	return b
}

// trailer returns the last bytes of an index file whose footer is at off.
func trailer(off uint64, foot []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, off)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(foot)))
	b = binary.LittleEndian.AppendUint64(b, xxhash.Sum64(foot))
	return append(b, endMagic...)
}
