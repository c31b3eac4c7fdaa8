package cluster

// keyTable maps 64-bit keys (hashes) to non-zero 32-bit values by open
// addressing with linear probing, kept at most three quarters full: 12 bytes
// a slot, 16 to 32 bytes a key.
type keyTable struct {
	keys  []uint64
	vals  []uint32 // 0: the slot is free
	n     int
	shift uint
}

func newKeyTable() *keyTable {
	t := &keyTable{}
	t.alloc(10)
	return t
}

func (t *keyTable) alloc(logSize uint) {
	t.keys = make([]uint64, 1<<logSize)
	t.vals = make([]uint32, 1<<logSize)
	t.shift = 64 - logSize
	t.n = 0
}

// slot spreads a key over the table (Fibonacci hashing), so that keys that
// are not well mixed still spread.
func (t *keyTable) slot(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> t.shift }

// get returns the value of k, or 0.
func (t *keyTable) get(k uint64) uint32 {
	mask := uint64(len(t.vals) - 1)
	for s := t.slot(k); ; s = (s + 1) & mask {
		v := t.vals[s]
		if v == 0 || t.keys[s] == k {
			return v
		}
	}
}

// set sets the value of k; v must not be 0.
func (t *keyTable) set(k uint64, v uint32) {
	mask := uint64(len(t.vals) - 1)
	s := t.slot(k)
	for t.vals[s] != 0 && t.keys[s] != k {
		s = (s + 1) & mask
	}
	if t.vals[s] == 0 {
		t.n++
	}
	t.keys[s], t.vals[s] = k, v
	if 4*t.n > 3*len(t.vals) {
		t.grow()
	}
}

func (t *keyTable) grow() {
	keys, vals := t.keys, t.vals
	t.alloc(64 - t.shift + 1)
	for i, v := range vals {
		if v != 0 {
			t.set(keys[i], v)
		}
	}
}

// bytes returns the memory the table holds.
func (t *keyTable) bytes() int64 { return 12 * int64(len(t.vals)) }
