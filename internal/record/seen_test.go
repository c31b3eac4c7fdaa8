package record_test

import (
	"bytes"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func TestSeen(t *testing.T) {
	line := record.AppendSeen(nil, []byte(`http://x/a#b`), 10, 120, 9, 12)
	if want := "http://x/a#b#10-120\t9\t12\n"; string(line) != want {
		t.Fatalf("AppendSeen: %q, want %q", line, want)
	}
	var s record.Seen
	if err := record.ParseSeen(&s, line[:len(line)-1]); err != nil || string(s.Part) != "http://x/a#b#10-120" || s.Seen != 9 || s.Total != 12 {
		t.Fatalf("ParseSeen: %+v, %v", s, err)
	}
	for _, bad := range []string{
		"d#0-5\t3", "d#0-5\t3\t2", "d#0-5\t0\t0", "d#0-5\t01\t2", "d#5-5\t1\t2",
		"d\t1\t2", "d#0-5\t-1\t2", "d#0-5\t1\t2\tx", "#0-5\t1\t2",
	} {
		if err := record.ParseSeen(&s, []byte(bad)); err == nil {
			t.Errorf("ParseSeen(%q): no error", bad)
		}
	}
}

func FuzzSeen(f *testing.F) {
	for _, s := range []string{"d#0-5\t3\t4", "a\\tb#c#1-2\t0\t1", "d#0-5\t3\t2", "x#0-1\t1\t1\t"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		roundTrip(t, line, func(b []byte) (record.Seen, error) {
			var s record.Seen
			err := record.ParseSeen(&s, b)
			return s, err
		}, func(dst []byte, s record.Seen) []byte {
			doc, start, end, err := record.ParsePartID(s.Part)
			if err != nil {
				t.Fatalf("%q: the part id parsed, then not: %v", s.Part, err)
			}
			return record.AppendSeen(dst, doc, start, end, s.Seen, s.Total)
		}, func(a, b record.Seen) bool {
			return bytes.Equal(a.Part, b.Part) && a.Seen == b.Seen && a.Total == b.Total
		})
	})
}
