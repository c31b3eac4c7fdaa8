package offsets

import (
	"bytes"
	"fmt"
	"testing"
)

// FuzzParse checks that Parse never panics, that what it accepts is in
// range (an id, an input, line and ordinal from 1, an offset and a length
// from 0), and that the record written again from what it parsed, in the
// layout Append writes, parses to the same id and place.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"d1\t1\t1\t1\t0\t5\t0123456789abcdef",
		"doc 7\t2\t30\t1234\t98765\t0\tffffffffffffffff",
		"x\t1073741824\t9223372036854775807\t9223372036854775807\t4611686018427387903\t1\t0000000000000000",
		"d\t+01\t007\t+3\t-0\t0\tABCDEF0123456789",
		"d1\t1\t1\t1\t0\t5",
		"\t1\t1\t1\t0\t5\t0123456789abcdef",
		"d1\t0\t1\t1\t0\t5\t0123456789abcdef",
		"d1\t1\t1\t1\t-1\t5\t0123456789abcdef",
		"d1\t1\t1\t1\t4611686018427387904\t0\t0123456789abcdef",
		"d1\t1\t1\t1\t0\t5\t0123456789abcdeg",
		"d1\t1\t1\t1\t0\t5\t0123456789abcdef\t",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, p, err := Parse(line)
		if err != nil {
			return
		}
		if len(id) == 0 || p.Input < 1 || p.Line < 1 || p.Ordinal < 1 || p.Offset < 0 || p.Length < 0 {
			t.Fatalf("Parse(%q) = %q, %+v: out of range", line, id, p)
		}
		again := fmt.Appendf(nil, "%s\t%d\t%d\t%d\t%d\t%d\t%016x", id, p.Input, p.Line, p.Ordinal, p.Offset, p.Length, p.Digest)
		id2, p2, err := Parse(again)
		if err != nil || !bytes.Equal(id2, id) || p2 != p {
			t.Fatalf("Parse(%q) = %q, %+v; written again %q, it parses to %q, %+v, %v", line, id, p, again, id2, p2, err)
		}
	})
}
