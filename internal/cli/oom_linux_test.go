package cli

import (
	"bytes"
	"testing"
)

// oomFilter passes standard error through as it comes, whatever the size of
// the reads, and keeps back the runtime's death out of memory, found also
// when a read ends within its first line.
func TestOOMFilter(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		oom     bool
	}{
		{"seen: a message\nruntime: a line\n", "seen: a message\nruntime: a line\n", false},
		{"a\nruntime: out of memory: cannot allocate 8-byte block\nfatal error: out of memory\n\ngoroutine 1\n", "a\n", true},
		{"fatal error: runtime: out of memory\n\nruntime stack:\n", "", true},
		{"runtime: out\n", "runtime: out\n", false},
		{"x fatal error: out of memory\n", "x fatal error: out of memory\n", false},
		{"fatal error: runtime: out", "fatal error: runtime: out", false},
		{"SIGSEGV: segmentation violation\nruntime.(*spanQueue).tryDrain(0x0)\n", "", true},
	} {
		for _, size := range []int{1, 2, 7, len(tc.in)} {
			var w bytes.Buffer
			f := &oomFilter{w: &w, atStart: true}
			for in := []byte(tc.in); len(in) > 0; {
				n := min(size, len(in))
				f.Write(in[:n])
				in = in[n:]
			}
			f.flush()
			if w.String() != tc.out || f.outOfMemory() != tc.oom {
				t.Errorf("%q in writes of %d: passed %q, out of memory %v; want %q, %v", tc.in, size, w.String(), f.outOfMemory(), tc.out, tc.oom)
			}
			if !f.outOfMemory() && w.String()+string(f.dump) != tc.in {
				t.Errorf("%q in writes of %d: passed and kept %q", tc.in, size, w.String()+string(f.dump))
			}
		}
	}
}
