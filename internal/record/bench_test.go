package record

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// benchHashes returns n distinct random hashes, ascending.
func benchHashes(n int) []uint64 {
	rng := rand.New(rand.NewPCG(1, 2))
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = rng.Uint64()
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// shingleField is the hash field of a shingle record of n hashes.
func shingleField(n int) []byte { return AppendHexList(nil, benchHashes(n)) }

func BenchmarkParseShingles(b *testing.B) {
	field := shingleField(1000)
	hs, _, _ := ParseShingles(nil, nil, field)
	b.ReportAllocs()
	b.SetBytes(int64(len(field)))
	for b.Loop() {
		var err error
		hs, _, err = ParseShingles(hs[:0], nil, field)
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendHex64(b *testing.B) {
	vals := benchHashes(1024)
	dst := make([]byte, 0, 16*len(vals))
	b.ReportAllocs()
	b.SetBytes(16 * int64(len(vals)))
	for b.Loop() {
		dst = dst[:0]
		for _, v := range vals {
			dst = AppendHex64(dst, v)
		}
	}
}

func BenchmarkAppendSketch(b *testing.B) {
	vals := benchHashes(128)
	id := []byte("doc-000123")
	dst := AppendSketch(nil, id, 1000, vals)
	b.ReportAllocs()
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		dst = AppendSketch(dst[:0], id, 1000, vals)
	}
}

func BenchmarkParseSketch(b *testing.B) {
	line := AppendSketch(nil, []byte("doc-000123"), 1000, benchHashes(128))
	line = line[:len(line)-1]
	var s Sketch
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if err := ParseSketch(&s, line); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHotPathAllocs pins the per-record parsers and writers to no
// allocation once their slices have grown.
func TestHotPathAllocs(t *testing.T) {
	field := shingleField(1000)
	hs, counts, _ := ParseShingles(nil, []uint32{}, field)
	if a := testing.AllocsPerRun(50, func() { hs, _, _ = ParseShingles(hs[:0], nil, field) }); a != 0 {
		t.Errorf("ParseShingles into a reused slice: %.1f allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(50, func() { hs, counts, _ = ParseShingles(hs[:0], counts[:0], field) }); a != 0 {
		t.Errorf("ParseShingles with counts into reused slices: %.1f allocations, want 0", a)
	}
	id := []byte("doc-1")
	dst := AppendSketch(nil, id, uint64(len(hs)), hs[:128])
	if a := testing.AllocsPerRun(50, func() { dst = AppendSketch(dst[:0], id, uint64(len(hs)), hs[:128]) }); a != 0 {
		t.Errorf("AppendSketch into a reused buffer: %.1f allocations, want 0", a)
	}
	line := dst[:len(dst)-1]
	var s Sketch
	if err := ParseSketch(&s, line); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Values, hs[:128]) || s.Size != uint64(len(hs)) || string(s.ID) != "doc-1" {
		t.Fatalf("ParseSketch(AppendSketch(x)) = %s %d %x…, want the values back", s.ID, s.Size, s.Values[:1])
	}
	if a := testing.AllocsPerRun(50, func() { _ = ParseSketch(&s, line) }); a != 0 {
		t.Errorf("ParseSketch into a reused Sketch: %.1f allocations, want 0", a)
	}
	shingles := AppendShingles(nil, id, hs)
	if a := testing.AllocsPerRun(50, func() { shingles = AppendShingles(shingles[:0], id, hs) }); a != 0 {
		t.Errorf("AppendShingles into a reused buffer: %.1f allocations, want 0", a)
	}
	shingles = shingles[:len(shingles)-1]
	if a := testing.AllocsPerRun(50, func() { _, _, _ = SplitShingles(shingles) }); a != 0 {
		t.Errorf("SplitShingles: %.1f allocations, want 0", a)
	}
	band := []byte("0000aaaaaaaaaaaaaaaa\tdoc-1\t")
	if a := testing.AllocsPerRun(50, func() { _, _, _ = ParseAnyBand(band) }); a != 0 {
		t.Errorf("ParseAnyBand: %.1f allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(50, func() { _, _, _ = ParseBand(band) }); a != 0 {
		t.Errorf("ParseBand: %.1f allocations, want 0", a)
	}
	pair := []byte("doc-1\tdoc-2\t")
	if a := testing.AllocsPerRun(50, func() { _, _, _ = ParsePair(pair) }); a != 0 {
		t.Errorf("ParsePair: %.1f allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(50, func() { dst = AppendPair(dst[:0], "doc-1", "doc-2") }); a != 0 {
		t.Errorf("AppendPair into a reused buffer: %.1f allocations, want 0", a)
	}
	if a := testing.AllocsPerRun(50, func() { dst = AppendScored(dst[:0], id, id, 0.5, 0.25, 1, true) }); a != 0 {
		t.Errorf("AppendScored into a reused buffer: %.1f allocations, want 0", a)
	}
}

// BenchmarkUnescape unescapes the text fields of Go source files as a TSV
// corpus holds them: a line break, escaped, every 30 bytes or so, and the
// source's own backslashes. With NEARDUP_BENCH_CORPUS naming a TSV corpus
// (examples/corpus-multilingual.sh), it unescapes that corpus's text
// fields instead:
//
//	NEARDUP_BENCH_CORPUS=/tmp/c.tsv go test -run '^$' -bench Unescape ./internal/record
func BenchmarkUnescape(b *testing.B) {
	var fields [][]byte
	var size int64
	if name := os.Getenv("NEARDUP_BENCH_CORPUS"); name != "" {
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			if _, text, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte("\t")); ok {
				fields = append(fields, text)
				size += int64(len(text))
			}
		}
	} else {
		root := filepath.Join(runtime.GOROOT(), "src", "strings")
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if text, err := os.ReadFile(path); err == nil {
					fields = append(fields, Escape(nil, text))
					size += int64(len(text))
				}
			}
			return nil
		})
	}
	if len(fields) == 0 {
		b.Skip("no text to unescape")
	}
	b.SetBytes(size)
	var dst []byte
	for b.Loop() {
		for _, f := range fields {
			dst = Unescape(dst[:0], f)
		}
	}
}
