package band

import (
	"math/bits"

	"github.com/neardup/neardup/internal/docfreq"
)

// dfMap is a document-frequency table in an open-addressing hash table:
// one probe into memory a lookup where the table's binary search takes
// about log2(n) (band looks up every shingle of every document). 24 bytes
// per hash at the load of one half or less.
type dfMap struct {
	hashes []uint64
	counts []uint32 // 0: an empty slot
	shift  uint
}

func newDFMap(t *docfreq.Table) *dfMap {
	b := max(bits.Len(uint(2*t.Len())), 4)
	m := &dfMap{hashes: make([]uint64, 1<<b), counts: make([]uint32, 1<<b), shift: uint(64 - b)}
	mask := uint64(1)<<b - 1
	t.Each(func(h uint64, c uint32) {
		if c == 0 {
			return // a table never holds 0; 0 is DF's answer for it anyway
		}
		for i := m.slot(h); ; i = (i + 1) & mask {
			if m.counts[i] == 0 {
				m.hashes[i], m.counts[i] = h, c
				return
			}
		}
	})
	return m
}

func (m *dfMap) slot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> m.shift }

// DF returns the count of h, 0 when the table does not hold it.
func (m *dfMap) DF(h uint64) uint64 {
	mask := uint64(len(m.counts) - 1)
	for i := m.slot(h); m.counts[i] != 0; i = (i + 1) & mask {
		if m.hashes[i] == h {
			return uint64(m.counts[i])
		}
	}
	return 0
}
