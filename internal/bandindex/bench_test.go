package bandindex

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// benchIndex builds an index of docs documents of 18 band records each, in
// one run, and returns it with the keys of a batch a tenth its size.
func benchIndex(b *testing.B, docs int) (*Index, [][]byte) {
	b.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	var buf bytes.Buffer
	buf.WriteString(testHeaders)
	for d := range docs {
		for band := range 18 {
			fmt.Fprintf(&buf, "%04x%016x\td%08d\n", band, rng.Uint64()>>8, d)
		}
	}
	dir := filepath.Join(b.TempDir(), "idx")
	in := filepath.Join(b.TempDir(), "k.tsv")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := RunBuild(context.Background(), Options{}, dir, []string{in}, &bytes.Buffer{}); err != nil {
		b.Fatal(err)
	}
	ix, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var keys [][]byte
	for range docs / 10 * 18 {
		keys = append(keys, fmt.Appendf(nil, "%04x%016x", rng.IntN(18), rng.Uint64()>>8))
	}
	slices.SortFunc(keys, bytes.Compare)
	return ix, keys
}

// BenchmarkLookup looks up the keys of a batch a tenth the size of the
// index, in order, as pairs --against does: records of the index per
// second.
func BenchmarkLookup(b *testing.B) {
	ix, keys := benchIndex(b, 100000)
	defer ix.Close()
	b.ReportAllocs()
	for b.Loop() {
		l := ix.NewLookup()
		for _, k := range keys {
			if _, err := l.IDs(k, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(keys)), "keys/op")
	b.ReportMetric(float64(ix.Records())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrecords/s")
}

// BenchmarkWriteRun writes a run of sorted records: bytes of "key TAB id"
// text per second.
func BenchmarkWriteRun(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	var e Entries
	text := 0
	for d := range 50000 {
		for band := range 18 {
			k, id := fmt.Appendf(nil, "%04x%016x", band, rng.Uint64()>>8), fmt.Appendf(nil, "d%08d", d)
			e.Add(k, id)
			text += len(k) + len(id) + 2
		}
	}
	e.Sort()
	b.ReportAllocs()
	b.SetBytes(int64(text))
	var size uint64
	for b.Loop() {
		w := newRunWriter(&bytes.Buffer{})
		for i := range e.Len() {
			if err := w.add(e.At(i)); err != nil {
				b.Fatal(err)
			}
		}
		r, err := w.finish("x.run")
		if err != nil {
			b.Fatal(err)
		}
		size = r.bytes
	}
	b.ReportMetric(float64(size)/float64(e.Len()), "bytes/record")
	b.ReportMetric(float64(text)/float64(e.Len()), "text-bytes/record")
}
