package shingle

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/neardup/neardup/internal/hashsort"
	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/record"
)

// goText returns about 1.5 MB of Go source: 100 files of GOROOT/src joined.
func goText(tb testing.TB) []byte {
	return bytes.Join(goSources(tb, 100), []byte("\n"))
}

var benchConfigs = []Options{
	{Unit: Word, K: 5, Scheme: Tok64},
	{Unit: Word, K: 5, Scheme: XXH64},
	{Unit: Char, K: 9, Scheme: Tok64},
	{Unit: Char, K: 9, Scheme: XXH64},
	{Unit: Stopword, K: 3, Scheme: Tok64},
}

func configName(o Options) string { return fmt.Sprintf("%s-k%d-%s", o.Unit, o.K, o.Scheme) }

// BenchmarkShingler hashes every shingle of Go source text; MB/s is of
// input text.
func BenchmarkShingler(b *testing.B) {
	text := goText(b)
	for _, opt := range benchConfigs {
		b.Run(configName(opt), func(b *testing.B) {
			s := New(opt)
			dst := s.Append(nil, text)
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				dst = s.Append(dst[:0], text)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(dst)), "ns/shingle")
		})
	}
}

// TestAppendAllocs pins Append to no allocation once its scratch space has
// grown for a text.
func TestAppendAllocs(t *testing.T) {
	text := goText(t)[:64<<10]
	for _, opt := range benchConfigs {
		s := New(opt)
		dst := s.Append(nil, text)
		if allocs := testing.AllocsPerRun(20, func() { dst = s.Append(dst[:0], text) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations per Append, want 0", configName(opt), allocs)
		}
	}
}

// BenchmarkShinglerCorpus shingles (word 5-shingles, tok64) the documents
// of the TSV file NEARDUP_BENCH_CORPUS, each language of
// examples/corpus-multilingual.sh apart (the id's first part: en/, ru/,
// zh/, …); MB/s is of the unescaped text. It is skipped without the
// variable:
//
//	examples/corpus-multilingual.sh 2000 > /tmp/c.tsv
//	NEARDUP_BENCH_CORPUS=/tmp/c.tsv go test -run '^$' -bench ShinglerCorpus ./internal/shingle
func BenchmarkShinglerCorpus(b *testing.B) {
	texts, langs := benchCorpus(b)
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			s := New(Options{Unit: Word, K: 5, Scheme: Tok64})
			var dst []uint64
			size := 0
			for _, t := range texts[lang] {
				size += len(t)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, t := range texts[lang] {
					dst = s.Append(dst[:0], t)
				}
			}
		})
	}
}

// benchCorpus returns the unescaped texts of the documents of
// NEARDUP_BENCH_CORPUS by language (the first part of the id), and the
// languages in the order they come; it skips b without the variable.
func benchCorpus(b *testing.B) (map[string][][]byte, []string) {
	name := os.Getenv("NEARDUP_BENCH_CORPUS")
	if name == "" {
		b.Skip("NEARDUP_BENCH_CORPUS names no corpus (TSV documents) to read")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	texts := map[string][][]byte{}
	var langs []string
	for line := range bytes.Lines(data) {
		id, text, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte("\t"))
		if !ok {
			continue
		}
		lang, _, _ := bytes.Cut(id, []byte("/"))
		if texts[string(lang)] == nil {
			langs = append(langs, string(lang))
		}
		texts[string(lang)] = append(texts[string(lang)], record.Unescape(nil, text))
	}
	return texts, langs
}

// BenchmarkOPHCorpus takes the OPH signature (128 bins) of the word
// 5-shingles of every document of NEARDUP_BENCH_CORPUS, as shingle --sketch
// oph --band does: each document's shingles, hashed beforehand, are copied
// into one array first, so that they come from the cache as shingle hands
// them over. MB/s is of the shingles' 8-byte values. Real documents, most
// of a few hundred shingles, are what showed the binning loop's branch
// mispredicted (a benchmark repeating a few sets trains the predictor):
//
//	NEARDUP_BENCH_CORPUS=/tmp/c.tsv go test -run '^$' -bench OPHCorpus ./internal/shingle
func BenchmarkOPHCorpus(b *testing.B) {
	sets, values := corpusShingles(b)
	o := minhash.NewOPH(128, 0)
	sig := make([]uint64, 128)
	var buf []uint64
	b.SetBytes(8 * int64(values))
	for b.Loop() {
		for _, set := range sets {
			buf = append(buf[:0], set...)
			o.Signature(sig, buf)
		}
	}
}

// BenchmarkSetCorpus makes the sorted set (hashsort.AppendSet, as verify
// does) of the word 5-shingles of every document of NEARDUP_BENCH_CORPUS,
// each document's shingles copied into one array first as
// BenchmarkOPHCorpus does; MB/s is of the shingles' 8-byte values.
//
//	NEARDUP_BENCH_CORPUS=/tmp/c.tsv go test -run '^$' -bench SetCorpus ./internal/shingle
func BenchmarkSetCorpus(b *testing.B) {
	sets, values := corpusShingles(b)
	var so hashsort.Sorter
	var buf, dst []uint64
	b.SetBytes(8 * int64(values))
	for b.Loop() {
		for _, set := range sets {
			buf = append(buf[:0], set...)
			dst = so.AppendSet(dst[:0], buf)
		}
	}
}

// corpusShingles returns the word 5-shingles of each document of
// NEARDUP_BENCH_CORPUS (benchCorpus), with their repeats, and their number.
func corpusShingles(b *testing.B) ([][]uint64, int) {
	texts, langs := benchCorpus(b)
	s := New(Options{Unit: Word, K: 5, Scheme: Tok64})
	var sets [][]uint64
	values := 0
	for _, lang := range langs {
		for _, t := range texts[lang] {
			sets = append(sets, s.Append(nil, t))
			values += len(sets[len(sets)-1])
		}
	}
	return sets, values
}
