package record_test

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func FuzzEscapeRoundTrip(f *testing.F) {
	for _, s := range []string{"", "plain", "a\tb\nc\rd\\e", `\\t`, "\\", "\xff\x00\t"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		esc := record.Escape(nil, raw)
		if bytes.ContainsAny(esc, "\t\n\r") {
			t.Fatalf("Escape(%q) = %q holds a raw TAB, LF or CR", raw, esc)
		}
		if back := record.Unescape(nil, esc); !bytes.Equal(back, raw) {
			t.Fatalf("Unescape(Escape(%q)) = %q", raw, back)
		}
		if got := record.NeedsEscape(raw); got != !bytes.Equal(esc, raw) {
			t.Fatalf("NeedsEscape(%q) = %v, but Escape gives %q", raw, got, esc)
		}
		if canon := record.CanonicalID(nil, esc); !bytes.Equal(canon, esc) {
			t.Fatalf("CanonicalID(%q) = %q: an escaped field is already canonical", esc, canon)
		}
		// Any field, even one with unknown escapes, has a canonical form
		// that is a fixed point.
		canon := record.CanonicalID(nil, raw)
		if again := record.CanonicalID(nil, canon); !bytes.Equal(again, canon) {
			t.Fatalf("CanonicalID(CanonicalID(%q)) = %q, want %q", raw, again, canon)
		}
	})
}

// formatShingles writes hashes and counts the way the shingle stage does,
// ":c" only for counts above one.
func formatShingles(hashes []uint64, counts []uint32) []byte {
	var b []byte
	for i, h := range hashes {
		if i > 0 {
			b = append(b, ' ')
		}
		b = record.AppendHex64(b, h)
		if counts[i] != 1 {
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(counts[i]), 10)
		}
	}
	return b
}

func FuzzParseShingles(f *testing.F) {
	for _, s := range []string{
		"",
		"0000000000000001 00000000000000ff ffffffffffffffff",
		"0000000000000001:3 00000000000000FF:1 ffffffffffffffff:4294967295",
		"0000000000000002 0000000000000001",
		"0000000000000001:0",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, field []byte) {
		hashes, counts, err := record.ParseShingles(nil, []uint32{}, field)
		// Without counts the fast paths run: the same hashes and error.
		fast, _, ferr := record.ParseShingles(nil, nil, field)
		if fmt.Sprint(ferr) != fmt.Sprint(err) || err == nil && !slices.Equal(fast, hashes) {
			t.Fatalf("ParseShingles(%q) without counts: %x, %v; with: %x, %v", field, fast, ferr, hashes, err)
		}
		if err != nil {
			if _, ok := err.(*record.LineError); !ok {
				t.Fatalf("ParseShingles(%q) error is %T, want *record.LineError", field, err)
			}
			return
		}
		if len(counts) != len(hashes) {
			t.Fatalf("ParseShingles(%q): %d hashes, %d counts", field, len(hashes), len(counts))
		}
		for i := range hashes {
			if i > 0 && hashes[i] <= hashes[i-1] {
				t.Fatalf("ParseShingles(%q) accepted hashes out of order: %x", field, hashes)
			}
			if counts[i] == 0 {
				t.Fatalf("ParseShingles(%q) accepted a zero count", field)
			}
		}
		again := formatShingles(hashes, counts)
		h2, c2, err := record.ParseShingles(nil, []uint32{}, again)
		if err != nil {
			t.Fatalf("ParseShingles(%q) (re-formatted from %q): %v", again, field, err)
		}
		if !slices.Equal(h2, hashes) || !slices.Equal(c2, counts) {
			t.Fatalf("re-parsing %q gives %x %v, want %x %v", again, h2, c2, hashes, counts)
		}
	})
}

func FuzzParseSketch(f *testing.F) {
	for _, s := range []string{
		"doc\t2\t0000000000000001 00000000000000ff",
		"d\t0\t",
		"a\\tb\t007\tFFFFFFFFFFFFFFFF",
		"doc\t1\t0000000000000001\tx",
		"doc\t1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var s record.Sketch
		if err := record.ParseSketch(&s, line); err != nil {
			return
		}
		if bytes.IndexByte(s.ID, '\t') >= 0 {
			t.Fatalf("ParseSketch(%q) gave an id with a TAB: %q", line, s.ID)
		}
		out := record.AppendSketch(nil, s.ID, s.Size, s.Values)
		if out[len(out)-1] != '\n' {
			t.Fatalf("AppendSketch gave %q without a line end", out)
		}
		var s2 record.Sketch
		if err := record.ParseSketch(&s2, out[:len(out)-1]); err != nil {
			t.Fatalf("ParseSketch(%q) (re-formatted from %q): %v", out, line, err)
		}
		if !bytes.Equal(s2.ID, s.ID) || s2.Size != s.Size || !slices.Equal(s2.Values, s.Values) {
			t.Fatalf("re-parsing %q gives %q %d %x, want %q %d %x", out, s2.ID, s2.Size, s2.Values, s.ID, s.Size, s.Values)
		}
	})
}

func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{
		"#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no",
		"#neardup stage=a stage=b",
		"#neardup  k=1\tstage=x=y \r\n",
		"#neardup",
		"#neardupx stage=a",
		"#neardup stage=a k",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !record.IsHeader(line) {
			return
		}
		h, err := record.ParseHeader(line)
		if err != nil {
			return
		}
		if h.Stage == "" {
			t.Fatalf("ParseHeader(%q) accepted a header without a stage", line)
		}
		s := h.String()
		if !record.IsHeader([]byte(s)) {
			t.Fatalf("String() = %q is not a header line", s)
		}
		back, err := record.ParseHeader([]byte(s))
		if err != nil {
			t.Fatalf("ParseHeader(%q) (String of %q): %v", s, line, err)
		}
		if !reflect.DeepEqual(back, h) {
			t.Fatalf("ParseHeader(%q) = %#v, want %#v (from %q)", s, back, h, line)
		}
	})
}

// FuzzUnescape checks Unescape's loops (64 bytes at a time with AVX-512, 32
// with AVX2, 8 in Go) against the definition, one byte at a time, on fields
// with escapes at every offset, and that what dst held before is kept.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"", `\`, `\\`, `a\`, `0123456\`, `01234567\t\n\r\\\q\`, `\\\\\\\\\n`, "x\\n\\\\" + strings.Repeat("y", 9) + `\`,
		strings.Repeat("a", 31) + `\n` + strings.Repeat("b", 30) + `\\\t\q\`, strings.Repeat(`\n`, 40), strings.Repeat("c", 32) + `\`,
		strings.Repeat("d", 31) + `\\\n` + strings.Repeat("e", 40) + `\`, strings.Repeat(`a\\\`, 30),
		strings.Repeat("f", 63) + `\n` + strings.Repeat("g", 70), strings.Repeat("h", 62) + `\\\n` + strings.Repeat("i", 70),
		strings.Repeat(`\`, 33) + "n" + strings.Repeat("j", 64) + `\`, strings.Repeat("k", 63) + `\q` + strings.Repeat(`\t`, 40)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, field []byte) {
		var want []byte
		for i := 0; i < len(field); i++ {
			c := field[i]
			if c == '\\' && i+1 < len(field) {
				switch field[i+1] {
				case 't':
					c, i = '\t', i+1
				case 'n':
					c, i = '\n', i+1
				case 'r':
					c, i = '\r', i+1
				case '\\':
					c, i = '\\', i+1
				}
			}
			want = append(want, c)
		}
		if got := record.Unescape(nil, field); !bytes.Equal(got, want) {
			t.Fatalf("Unescape(%q) = %q, want %q", field, got, want)
		}
		if got := record.Unescape([]byte("pre"), field); string(got[:3]) != "pre" || !bytes.Equal(got[3:], want) {
			t.Fatalf("Unescape(pre, %q) = %q, want pre%q", field, got, want)
		}
		restore := record.NoAVX512Unescape()
		got := record.Unescape(nil, field)
		restore()
		if !bytes.Equal(got, want) {
			t.Fatalf("Unescape(%q) without AVX-512 = %q, want %q", field, got, want)
		}
		restore = record.NoVectorCode()
		got = record.Unescape(nil, field)
		restore()
		if !bytes.Equal(got, want) {
			t.Fatalf("Unescape(%q) without vector code = %q, want %q", field, got, want)
		}
	})
}
