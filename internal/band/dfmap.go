package band

import (
	"math/bits"

	"github.com/neardup/neardup/internal/docfreq"
)

// dfMap is a document-frequency table in an open-addressing hash table:
// one probe into memory a lookup where the table's binary search takes
// about log2(n) (band looks up every shingle of every document). A slot
// holds the hash and its count side by side, so that a lookup that finds
// its hash misses the cache once, not twice: 16 bytes per slot, 32 per hash
// at the load of one half or less.
type dfMap struct {
	slots []dfSlot
	shift uint
}

// dfSlot is a hash and its count; count 0 is an empty slot.
type dfSlot struct {
	hash  uint64
	count uint32
}

func newDFMap(t *docfreq.Table) *dfMap {
	b := max(bits.Len(uint(2*t.Len())), 4)
	m := &dfMap{slots: make([]dfSlot, 1<<b), shift: uint(64 - b)}
	mask := uint64(1)<<b - 1
	t.Each(func(h uint64, c uint32) {
		if c == 0 {
			return // a table never holds 0; 0 is DF's answer for it anyway
		}
		for i := m.slot(h); ; i = (i + 1) & mask {
			if m.slots[i].count == 0 {
				m.slots[i] = dfSlot{h, c}
				return
			}
		}
	})
	return m
}

func (m *dfMap) slot(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> m.shift }

// DF returns the count of h, 0 when the table does not hold it.
func (m *dfMap) DF(h uint64) uint64 {
	mask := uint64(len(m.slots) - 1)
	for i := m.slot(h); m.slots[i].count != 0; i = (i + 1) & mask {
		if m.slots[i].hash == h {
			return uint64(m.slots[i].count)
		}
	}
	return 0
}

// touch reads the first slot of each hash, without a branch on what it
// finds: the loads are independent, so the processor has many cache misses
// under way at once, where DF's loop, branching on each slot, waits for
// one after another. DF then finds the slots in the cache (the table is
// far larger than it; a document's slots are not). The caller keeps the
// sum returned, so that the loads are not left out.
func (m *dfMap) touch(hashes []uint64) (sum uint64) {
	for _, h := range hashes {
		sum += m.slots[m.slot(h)].hash
	}
	return sum
}
