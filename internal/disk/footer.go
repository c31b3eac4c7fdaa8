package disk

import (
	"encoding/binary"
	"errors"
)

// errFooterShort is the error of a footer read past its end.
var errFooterShort = errors.New("footer ends early")

// Footer reads, in order, the little-endian fields of the footer of a
// stored file (an index, a band index's run). The first read past the end
// sets Err, and every read after it returns zero values, so a parser reads
// all its fields and checks Err once. A parser may set Err itself, to stop
// at a field whose value is wrong.
type Footer struct {
	B   []byte
	Err error
}

// Take returns the next n bytes, which alias B.
func (r *Footer) Take(n uint64) []byte {
	if r.Err != nil || n > uint64(len(r.B)) {
		if r.Err == nil {
			r.Err = errFooterShort
		}
		return nil
	}
	v := r.B[:n]
	r.B = r.B[n:]
	return v
}

// U32 reads a 32-bit field.
func (r *Footer) U32() uint32 {
	if v := r.Take(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

// U64 reads a 64-bit field.
func (r *Footer) U64() uint64 {
	if v := r.Take(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// U64s reads n 64-bit fields.
func (r *Footer) U64s(n int) []uint64 {
	raw := r.Take(uint64(n) * 8)
	if raw == nil {
		return nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(raw[8*i:])
	}
	return out
}

// Bytes reads a field of a uvarint length and that many bytes, and returns
// a copy of them.
func (r *Footer) Bytes() []byte {
	if r.Err != nil {
		return nil
	}
	n, k := binary.Uvarint(r.B)
	if k <= 0 {
		r.Err = errFooterShort
		return nil
	}
	r.B = r.B[k:]
	if v := r.Take(n); v != nil {
		return append([]byte{}, v...)
	}
	return nil
}
