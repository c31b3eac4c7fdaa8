package record

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestFingerprintRoundTrip(t *testing.T) {
	for _, c := range []struct {
		hi, lo uint64
		f      int
		text   string
	}{
		{0x0123456789abcdef, 0, 64, "0123456789abcdef"},
		{0xffffffffffffffff, 0x1, 128, "ffffffffffffffff0000000000000001"},
	} {
		got := string(AppendFingerprint(nil, c.hi, c.lo, c.f))
		if got != c.text {
			t.Errorf("AppendFingerprint = %q, want %q", got, c.text)
		}
		hi, lo, f, ok := ParseFingerprint([]byte(strings.ToUpper(c.text)))
		if !ok || hi != c.hi || lo != c.lo || f != c.f {
			t.Errorf("ParseFingerprint(%q) = %x %x %d %v", c.text, hi, lo, f, ok)
		}
	}
	for _, bad := range []string{"", "0123", "0123456789abcdeg", "0123456789abcdef0", "0123456789abcdef0123456789abcdez"} {
		if _, _, _, ok := ParseFingerprint([]byte(bad)); ok {
			t.Errorf("ParseFingerprint(%q) accepted", bad)
		}
	}
}

func TestSimSketch(t *testing.T) {
	line := AppendSimSketch(nil, []byte("doc\\t1"), 42, 0xabc, 0, 64)
	if string(line) != "doc\\t1\t42\t0000000000000abc\n" {
		t.Errorf("AppendSimSketch = %q", line)
	}
	var s SimSketch
	if err := ParseSimSketch(&s, TrimEOL(line)); err != nil || string(s.ID) != "doc\\t1" || s.Size != 42 || s.Hi != 0xabc || s.F != 64 {
		t.Errorf("ParseSimSketch: %+v %v", s, err)
	}
	for _, bad := range []string{"a", "a\t1", "a\tx\t0000000000000000", "a\t1\t00", "a\t1\t0000000000000000\textra", "a\t1\t0000000000000000 0000000000000000"} {
		if err := ParseSimSketch(&s, []byte(bad)); err == nil {
			t.Errorf("ParseSimSketch(%q) accepted", bad)
		}
	}
	key, id, fp, err := ParseHammingBand([]byte("0001abc\tdoc\t0123456789abcdef"))
	if err != nil || string(key) != "0001abc" || string(id) != "doc" || string(fp) != "0123456789abcdef" {
		t.Errorf("ParseHammingBand: %q %q %q %v", key, id, fp, err)
	}
	for _, bad := range []string{"k\tdoc", "\tdoc\tfp", "k\t\tfp", "k\td\tf\tx"} {
		if _, _, _, err := ParseHammingBand([]byte(bad)); err == nil {
			t.Errorf("ParseHammingBand(%q) accepted", bad)
		}
	}
}

// FuzzSimSketch checks that a parsed record writes back to the same line
// (for lower-case fingerprints) and that parsing never panics.
func FuzzSimSketch(f *testing.F) {
	f.Add([]byte("a\t1\t0123456789abcdef"))
	f.Add([]byte("x\\ty\t0\tffffffffffffffff0000000000000001"))
	f.Add([]byte("a\t\t"))
	f.Fuzz(func(t *testing.T, line []byte) {
		var s SimSketch
		if err := ParseSimSketch(&s, line); err != nil {
			return
		}
		out := AppendSimSketch(nil, s.ID, s.Size, s.Hi, s.Lo, s.F)
		var s2 SimSketch
		if err := ParseSimSketch(&s2, TrimEOL(out)); err != nil {
			t.Fatalf("written record %q does not parse: %v", out, err)
		}
		if !bytes.Equal(s.ID, s2.ID) || s.Size != s2.Size || s.Hi != s2.Hi || s.Lo != s2.Lo || s.F != s2.F {
			t.Fatalf("round trip changed %+v into %+v", s, s2)
		}
	})
}

// A fingerprint of any multiple of 64 bits is one field of its words'
// hex digits; one or two words make the simhash sketch record.
func TestBitSketch(t *testing.T) {
	words := []uint64{0xabc, 0xffffffffffffffff, 0x1, 0x8000000000000000}
	line := AppendBitSketch(nil, []byte("doc"), 7, words)
	if want := "doc\t7\t0000000000000abcffffffffffffffff00000000000000018000000000000000\n"; string(line) != want {
		t.Errorf("AppendBitSketch = %q, want %q", line, want)
	}
	var s BitSketch
	if err := ParseBitSketch(&s, TrimEOL(line)); err != nil || string(s.ID) != "doc" || s.Size != 7 || !slices.Equal(s.Words, words) {
		t.Errorf("ParseBitSketch: %+v %v", s, err)
	}
	if got := AppendBitSketch(nil, []byte("doc"), 7, words[:2]); !bytes.Equal(got, AppendSimSketch(nil, []byte("doc"), 7, 0xabc, ^uint64(0), 128)) {
		t.Errorf("two words: %q, not the simhash sketch record", got)
	}
	for _, bad := range []string{"a\t1\t", "a\t1\t00", "a\t1\t0000000000000000000", "a\t1\t000000000000000g", "a\t1\t0000000000000000 0000000000000000", "a\tx\t0000000000000000"} {
		if err := ParseBitSketch(&s, []byte(bad)); err == nil {
			t.Errorf("ParseBitSketch(%q) accepted", bad)
		}
	}
}
