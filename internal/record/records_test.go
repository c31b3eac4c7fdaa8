package record_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// checkErr reports a parse whose error is not the one wanted: want "" for
// none, else a part of its message.
func checkErr(t *testing.T, what, line string, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s(%q): %v", what, line, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s(%q) error = %v, want %q", what, line, err, want)
	default:
		return want == ""
	}
	return false
}

func TestKey(t *testing.T) {
	for line, want := range map[string]string{"a\tb\tc": "a", "abc": "abc", "\tb": "", "": ""} {
		if got := string(record.Key([]byte(line))); got != want {
			t.Errorf("Key(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestShingleRecords(t *testing.T) {
	id, field, err := record.SplitShingles([]byte("d\t0000000000000001 0000000000000002"))
	if err != nil || string(id) != "d" || string(field) != "0000000000000001 0000000000000002" {
		t.Errorf("SplitShingles = %q %q %v", id, field, err)
	}
	_, _, err = record.SplitShingles([]byte("d"))
	checkErr(t, "SplitShingles", "d", err, "want id TAB shingle hashes, found no TAB")
	if got := string(record.AppendShingles([]byte("x"), []byte("d"), []uint64{1, 0xff})); got != "xd\t0000000000000001 00000000000000ff\n" {
		t.Errorf("AppendShingles = %q", got)
	}
	if got := string(record.AppendShingles(nil, []byte("d"), nil)); got != "d\t\n" {
		t.Errorf("AppendShingles of none = %q", got)
	}
	if got := string(record.AppendShingleCounts(nil, []byte("d"), []uint64{1, 1, 1, 2})); got != "d\t0000000000000001:3 0000000000000002:1\n" {
		t.Errorf("AppendShingleCounts = %q", got)
	}
	if got := string(record.AppendShingleCounts(nil, []byte("d"), nil)); got != "d\t\n" {
		t.Errorf("AppendShingleCounts of none = %q", got)
	}
}

func TestParseBand(t *testing.T) {
	for _, c := range []struct{ line, key, id, err string }{
		{"k\tid", "k", "id", ""},
		{"k\tid\t", "k", "id", ""},
		{"k", "", "", "want key TAB id, found 1 field(s)"},
		{"\tid", "", "", "empty key"},
		{"k\t", "", "", "empty id"},
		{"k\ta\\qb", "", "", `id a\qb: \q is not an escape`},
		{"k\ta\tb", "", "", "found 3 fields"},
	} {
		k, id, err := record.ParseBand([]byte(c.line))
		if checkErr(t, "ParseBand", c.line, err, c.err) && (string(k) != c.key || string(id) != c.id) {
			t.Errorf("ParseBand(%q) = %q %q", c.line, k, id)
		}
	}
}

func TestParseAnyBand(t *testing.T) {
	for _, c := range []struct{ line, key, id, err string }{
		{"k\tid", "k", "id", ""},
		{"k\tid\t0123456789abcdef", "k", "id", ""},
		{"k\tid\t", "k", "id", ""},
		{"k", "", "", "want key TAB id, found no TAB"},
		{"\tid", "", "", "empty key"},
		{"k\t\tfp", "", "", "empty id"},
	} {
		k, id, err := record.ParseAnyBand([]byte(c.line))
		if checkErr(t, "ParseAnyBand", c.line, err, c.err) && (string(k) != c.key || string(id) != c.id) {
			t.Errorf("ParseAnyBand(%q) = %q %q", c.line, k, id)
		}
	}
	if got := string(record.AppendHammingBand(nil, []byte("0001abc"), []byte("d"), 1, 2, 128)); got != "0001abc\td\t00000000000000010000000000000002\n" {
		t.Errorf("AppendHammingBand = %q", got)
	}
}

func TestParsePair(t *testing.T) {
	for _, c := range []struct{ line, a, b, err string }{
		{"a\tb", "a", "b", ""},
		{"a\tb\t", "a", "b", ""},
		{"a", "", "", "want idA TAB idB, found no TAB"},
		{"a\tb\tc", "", "", "want idA TAB idB, found more fields"},
	} {
		a, b, err := record.ParsePair([]byte(c.line))
		if checkErr(t, "ParsePair", c.line, err, c.err) && (string(a) != c.a || string(b) != c.b) {
			t.Errorf("ParsePair(%q) = %q %q", c.line, a, b)
		}
	}
	if got := string(record.AppendPair(nil, "a", "b")) + string(record.AppendPair(nil, []byte("c"), []byte("d"))); got != "a\tb\nc\td\n" {
		t.Errorf("AppendPair = %q", got)
	}
}

func TestParsePairScore(t *testing.T) {
	for _, c := range []struct{ line, a, b, score, err string }{
		{"a\tb", "a", "b", "", ""},
		{"a\tb\t0.5", "a", "b", "0.5", ""},
		{"a\tb\t0.5\t1\t0.25", "a", "b", "0.5", ""},
		{"a\tb\t", "a", "b", "", ""},
		{"a", "", "", "", "want idA TAB idB [TAB similarity …], found no TAB"},
	} {
		a, b, s, err := record.ParsePairScore([]byte(c.line))
		if checkErr(t, "ParsePairScore", c.line, err, c.err) && (string(a) != c.a || string(b) != c.b || string(s) != c.score) {
			t.Errorf("ParsePairScore(%q) = %q %q %q", c.line, a, b, s)
		}
	}
}

func TestParseScored(t *testing.T) {
	for _, c := range []struct{ line, want, err string }{
		{"a\tb\t0.250000", "a\tb\t0.250000\n", ""},
		{"a\tb\t1\t0.5\t0", "a\tb\t1.000000\t0.500000\t0.000000\n", ""},
		{"a\tb", "", "want idA TAB idB TAB similarity [TAB containment TAB containment], found 2 field(s)"},
		{"a\tb\t1\t1", "", "found 4 field(s)"},
		{"a\tb\tx", "", `similarity "x": want a number from 0 to 1`},
		{"a\tb\t1\t1.5\t1", "", `similarity "1.5": want a number from 0 to 1`},
		{"a\tb\t1\t1\tNaN", "", `similarity "NaN": want a number from 0 to 1`},
	} {
		var s record.Scored
		err := record.ParseScored(&s, []byte(c.line))
		if checkErr(t, "ParseScored", c.line, err, c.err) {
			if got := string(record.AppendScored(nil, s.A, s.B, s.J, s.AB, s.BA, s.Containment)); got != c.want {
				t.Errorf("ParseScored(%q) writes back as %q, want %q", c.line, got, c.want)
			}
		}
	}
}

func TestParseDistance(t *testing.T) {
	for _, c := range []struct{ line, want, err string }{
		{"q\ts\t3", "q\ts\t3\n", ""},
		{"q\ts\t03\t", "q\ts\t3\n", ""},
		{"q\ts", "", "want id TAB id TAB distance, found 2 field(s)"},
		{"q\ts\t-1", "", `distance "-1" is not a number`},
	} {
		a, b, d, err := record.ParseDistance([]byte(c.line))
		if checkErr(t, "ParseDistance", c.line, err, c.err) {
			if got := string(record.AppendDistance(nil, a, b, d)); got != c.want {
				t.Errorf("ParseDistance(%q) writes back as %q, want %q", c.line, got, c.want)
			}
		}
	}
}

func TestParseDocFreq(t *testing.T) {
	for _, c := range []struct{ line, want, err string }{
		{"00000000000000FF\t12", "00000000000000ff\t12\n", ""},
		{"00000000000000ff", "", "want hash TAB count, found no TAB"},
		{"ff\t1", "", `hash "ff": want 16 hex digits`},
		{"00000000000000ff\t", "", `count "" is not a number`},
	} {
		h, n, err := record.ParseDocFreq([]byte(c.line))
		if checkErr(t, "ParseDocFreq", c.line, err, c.err) {
			if got := string(record.AppendDocFreq(nil, h, n)); got != c.want {
				t.Errorf("ParseDocFreq(%q) writes back as %q, want %q", c.line, got, c.want)
			}
		}
	}
}

func TestParseMember(t *testing.T) {
	for _, c := range []struct{ line, cluster, id, err string }{
		{"c\td", "c", "d", ""},
		{"c\td\t", "c", "d", ""},
		{"c", "", "", "want cluster TAB id, found 1 field(s)"},
		{"c\td\te", "", "", "want cluster TAB id, found 3 field(s)"},
		{"\td", "", "", "empty cluster or id"},
	} {
		cl, id, err := record.ParseMember([]byte(c.line))
		if checkErr(t, "ParseMember", c.line, err, c.err) && (string(cl) != c.cluster || string(id) != c.id) {
			t.Errorf("ParseMember(%q) = %q %q", c.line, cl, id)
		}
	}
	if got := string(record.AppendMember(nil, []byte("c"), []byte("d"))); got != "c\td\n" {
		t.Errorf("AppendMember = %q", got)
	}
}

func TestParseAttached(t *testing.T) {
	for _, c := range []struct{ line, want, err string }{
		{"b\ta\t2\t0000000000000001 0000000000000002", "b\ta\t2\t0000000000000001 0000000000000002\n", ""},
		{"b\ta\t0\t", "b\ta\t0\t\n", ""},
		{"b\ta\t1", "", "want idB TAB idA TAB size TAB values (an attached pair), found 3 fields"},
		{"a\ta\tx\t", "", "a pair of a with itself"},
		{"b\ta\tx\t", "", `size "x" is not a number`},
	} {
		b, a, size, values, err := record.ParseAttached([]byte(c.line))
		if checkErr(t, "ParseAttached", c.line, err, c.err) {
			if got := string(record.AppendAttached(nil, b, a, size, values)); got != c.want {
				t.Errorf("ParseAttached(%q) writes back as %q, want %q", c.line, got, c.want)
			}
		}
	}
}

func ExampleAppendScored() {
	line := record.AppendScored(nil, []byte("a"), []byte("b"), 0.25, 0.5, 1.0/3, true)
	fmt.Printf("%q\n", line)
	// Output: "a\tb\t0.250000\t0.500000\t0.333333\n"
}
