package record_test

import (
	"bytes"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func FuzzContainBand(f *testing.F) {
	for _, s := range []string{
		"00000000000000ff\tdoc\tp\t12",
		"00000000000000ff\tdoc\ti\t1",
		"k\tid", "k\tid\tx\t3", "k\tid\tp\t0", "k\tid\tp\t012", "k\tid\tp\t3\t", "\tid\tp\t3", "k\t\tp\t3",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		parse := func(line []byte) (record.ContainBand, error) {
			var b record.ContainBand
			err := record.ParseContainBand(&b, line)
			return b, err
		}
		write := func(dst []byte, b record.ContainBand) []byte {
			return record.AppendContainBand(dst, b.Key, b.ID, b.Probe, b.Size)
		}
		roundTrip(t, line, parse, write, same)
		// The tail after the key parses alike on its own, as a band index
		// stores it.
		if b, err := parse(line); err == nil {
			_, tail, _ := record.Cut(line)
			var c record.ContainBand
			if err := record.ParseContainTail(&c, tail); err != nil || !bytes.Equal(c.ID, b.ID) || c.Probe != b.Probe || c.Size != b.Size {
				t.Fatalf("ParseContainTail(%q) = %+v, %v; want %+v", tail, c, err, b)
			}
		}
	})
}

func TestContainBandErrors(t *testing.T) {
	for line, want := range map[string]string{
		"0000aaaaaaaaaaaaaaaa\tdoc": "a Jaccard band record among containment band records",
		"k\tid\tq\t3":               `role "q"`,
		"k\tid\tp\t0":               "size",
		"k\tid\tp":                  "found 3 fields",
	} {
		var b record.ContainBand
		err := record.ParseContainBand(&b, []byte(line))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("ParseContainBand(%q) = %v, want an error with %q", line, err, want)
		}
	}
}
