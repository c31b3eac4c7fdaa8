package disk

import (
	"encoding/binary"
	"slices"
	"testing"
)

func TestFooter(t *testing.T) {
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, 7)
	b = binary.LittleEndian.AppendUint64(b, 1<<40)
	b = binary.AppendUvarint(b, 3)
	b = append(b, "abc"...)
	b = binary.LittleEndian.AppendUint64(b, 1)
	b = binary.LittleEndian.AppendUint64(b, 2)
	r := &Footer{B: b}
	if v := r.U32(); v != 7 {
		t.Errorf("U32 = %d, want 7", v)
	}
	if v := r.U64(); v != 1<<40 {
		t.Errorf("U64 = %d, want 2^40", v)
	}
	if v := r.Bytes(); string(v) != "abc" {
		t.Errorf("Bytes = %q, want abc", v)
	}
	if v := r.U64s(2); !slices.Equal(v, []uint64{1, 2}) {
		t.Errorf("U64s = %v, want [1 2]", v)
	}
	if r.Err != nil || len(r.B) != 0 {
		t.Fatalf("after every field: err %v, %d bytes left", r.Err, len(r.B))
	}
	// Past the end: the error is set once and every read gives zero.
	if v := r.U32(); v != 0 || r.Err == nil {
		t.Fatalf("U32 past the end = %d, err %v; want 0 and an error", v, r.Err)
	}
	first := r.Err
	if r.U64() != 0 || r.Bytes() != nil || r.U64s(1) != nil || r.Err != first {
		t.Errorf("reads after the first overrun must give zero values and keep the first error")
	}
	// A length that runs past the end.
	r = &Footer{B: binary.AppendUvarint(nil, 10)}
	if v := r.Bytes(); v != nil || r.Err == nil {
		t.Errorf("Bytes of a length past the end = %q, err %v", v, r.Err)
	}
}
