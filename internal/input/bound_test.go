package input

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// FuzzParseInputs: any inputs= value is refused or parsed, never a panic;
// one parsed is written back as it was read.
func FuzzParseInputs(f *testing.F) {
	f.Add("12:00000000000000ff")
	f.Add("-")
	f.Add("0:0123456789abcdef,-,7:fedcba9876543210")
	f.Add("")
	f.Add("12:ff")
	f.Add("-1:0123456789abcdef")
	f.Fuzz(func(t *testing.T, v string) {
		fps, err := ParseInputs(v)
		if err != nil {
			return
		}
		back := FormatInputs(fps)
		again, err := ParseInputs(back)
		if err != nil || FormatInputs(again) != back {
			t.Fatalf("inputs=%s read as %s, which reads back as %v, %v", v, back, again, err)
		}
	})
}

// FuzzParseBatch: any manifest batch line (after "batch ") and any pairs
// header batches= value is refused or parsed, never a panic; one parsed is
// written back to what parses the same.
func FuzzParseBatch(f *testing.F) {
	f.Add("from=0 next=400 inputs=139671:278e608e8fdf584f", "0-400/139671:278e608e8fdf584f;400-600")
	f.Add("from=5 next=5", "5-5/-")
	f.Add("from=9 next=3", "9-3")
	f.Add("from=0 next=1 inputs=", "0-1/")
	f.Fuzz(func(t *testing.T, line, batches string) {
		if b, err := ParseBatch(line); err == nil {
			again, err := ParseBatch(b.String())
			if err != nil || again.String() != b.String() {
				t.Fatalf("batch %s read as %s, which reads back as %s, %v", line, b, again, err)
			}
		}
		if bs, err := ParseBatches(batches); err == nil {
			back := FormatBatches(bs)
			again, err := ParseBatches(back)
			if err != nil || FormatBatches(again) != back {
				t.Fatalf("batches=%s read as %s, which reads back as %v, %v", batches, back, again, err)
			}
		}
	})
}

func TestParseBatchRefuses(t *testing.T) {
	for _, line := range []string{"from=9 next=3", "next=3", "from=0 next=4 inputs=12:zz", "from=0 next=4 color=red", "from=x next=4"} {
		if _, err := ParseBatch(line); err == nil {
			t.Errorf("batch %s: no error", line)
		}
	}
	for _, v := range []string{"", "0-", "4-1", "0-4/", "0-4/12:00", "a-b"} {
		if _, err := ParseBatches(v); err == nil {
			t.Errorf("batches=%s: no error", v)
		}
	}
}

// TestFingerprint: a fingerprint binds the size and both ends of a file,
// not its middle.
func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := make([]byte, 3*FingerprintEdge)
	for i := range big {
		big[i] = byte(i * 7)
	}
	a := FingerprintFile(write("a", big))
	mid := append([]byte(nil), big...)
	mid[len(mid)/2]++
	end := append([]byte(nil), big...)
	end[len(end)-1]++
	switch {
	case a.Unbound || a.Size != int64(len(big)):
		t.Fatalf("fingerprint of a regular file: %+v", a)
	case FingerprintFile(write("mid", mid)) != a:
		t.Errorf("a change in the middle changed the fingerprint")
	case FingerprintFile(write("end", end)) == a:
		t.Errorf("a change at the end did not change the fingerprint")
	case FingerprintFile(write("short", big[:len(big)-1])) == a:
		t.Errorf("a shorter file has the same fingerprint")
	case !FingerprintFile("-").Unbound || !FingerprintFile(dir).Unbound:
		t.Errorf("standard input and a directory are bound")
	}
}

// TestCheckNumbered: files are checked from the batch the numbers start
// at, on through the batches that follow it while their ends are known.
func TestCheckNumbered(t *testing.T) {
	dir := t.TempDir()
	var names []string
	var fps []Fingerprint
	for i, text := range []string{"a\tone\n", "b\ttwo\n", "c\tthree\n"} {
		p := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
		fps = append(fps, FingerprintFile(p))
	}
	batches := []Batch{
		{From: 0, Next: 10, Inputs: fps[:2], Where: "the index"},
		{From: 10, Next: -1, Inputs: fps[2:], Where: "the shingle header"},
	}
	for _, c := range []struct {
		from  int64
		files []string
		bad   string // the file refused, "" for none
	}{
		{0, names, ""},
		{0, names[:2], ""},
		{10, names[2:], ""},
		{0, []string{names[1], names[0], names[2]}, names[1]},
		{0, []string{names[0], names[1], names[1]}, names[1]},
		{10, names[:1], names[0]},
		{5, names, names[0]},   // inside the first batch
		{20, names, ""},        // after every batch known: nothing to check
		{0, []string{"-"}, ""}, // standard input: not checked
	} {
		err := CheckNumbered(batches, c.from, c.files, "--documents")
		if c.bad == "" {
			if err != nil {
				t.Errorf("from %d %v: %v", c.from, c.files, err)
			}
			continue
		}
		e, ok := err.(*record.Error)
		if !ok || e.Pos.File != c.bad {
			t.Errorf("from %d %v: got %v, want an error at %s", c.from, c.files, err, c.bad)
		}
	}
}
