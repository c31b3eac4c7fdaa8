package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/internal/disk/disktest"
	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// corpus is a set of records and queries with known answers.
type corpus struct {
	fps []uint64
	ids []string
}

func (c *corpus) add(fp uint64, id string) {
	c.fps = append(c.fps, fp)
	c.ids = append(c.ids, id)
}

func (c *corpus) records() *Records {
	r := &Records{}
	for i, fp := range c.fps {
		r.Add(fp, []byte(c.ids[i]))
	}
	return r
}

// flipBits flips the given bit positions (0 = the first bit).
func flipBits(x uint64, pos ...int) uint64 {
	for _, p := range pos {
		x ^= 1 << (63 - p)
	}
	return x
}

// newCorpus makes n random fingerprints and, around some of them,
// neighbours within and just beyond k bits: flips inside one block, spread
// over blocks, and on block edges; and repeated fingerprints with other ids.
func newCorpus(rng *rand.Rand, n, k int) *corpus {
	c := &corpus{}
	for i := range n {
		base := rng.Uint64()
		c.add(base, "r"+strconv.Itoa(i))
		if i%10 != 0 {
			continue
		}
		for j := 0; j <= k+1; j++ {
			var pos []int
			switch i / 10 % 3 {
			case 0: // inside the first bits
				for b := range j {
					pos = append(pos, b)
				}
			case 1: // spread
				for b := range j {
					pos = append(pos, b*64/(j+1))
				}
			default: // random
				for range j {
					pos = append(pos, rng.IntN(64))
				}
			}
			c.add(flipBits(base, pos...), fmt.Sprintf("r%d-%d", i, j))
		}
		c.add(base, "r"+strconv.Itoa(i)+"-dup")
	}
	return c
}

// crowdedCorpus is newCorpus with the first 16 bits of every fingerprint
// one of three, so that keys on them are shared by hundreds of fingerprints
// (runs across many blocks), and some ids of 64 bytes or more.
func crowdedCorpus(rng *rand.Rand, n, k int) *corpus {
	c := newCorpus(rng, n, k)
	prefixes := []uint64{0x1234, 0x1235, 0xfedc}
	for i := range c.fps {
		c.fps[i] = prefixes[i%3]<<48 | c.fps[i]&(1<<48-1)
		if i%7 == 0 {
			c.ids[i] += strings.Repeat("x", 64+i%150)
		}
	}
	return c
}

// want returns the ids within k bits of q with their distances, ordered as
// the index orders them.
func (c *corpus) want(q uint64, k int) []string {
	type hit struct {
		d  int
		id string
	}
	var hits []hit
	for i, fp := range c.fps {
		if d := bits.OnesCount64(fp ^ q); d <= k {
			hits = append(hits, hit{d, c.ids[i]})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.id, b.id)
	})
	hits = slices.Compact(hits)
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s:%d", h.id, h.d))
	}
	return out
}

// queries returns stored fingerprints, neighbours of them and random ones.
func (c *corpus) queries(rng *rand.Rand, n, k int) []uint64 {
	var qs []uint64
	for i := range n {
		fp := c.fps[rng.IntN(len(c.fps))]
		switch i % 3 {
		case 0:
			qs = append(qs, fp)
		case 1:
			var pos []int
			for range rng.IntN(k + 2) {
				pos = append(pos, rng.IntN(64))
			}
			qs = append(qs, flipBits(fp, pos...))
		default:
			qs = append(qs, rng.Uint64())
		}
	}
	return qs
}

// online answers q as the query command does.
func online(t *testing.T, s *Searcher, q uint64, k int) []string {
	t.Helper()
	ms, err := s.Search(nil, q, k)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Result
	for _, m := range ms {
		ids, err := s.IDs(nil, m.FP)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			rs = append(rs, Result{Dist: m.Dist, ID: bytes.Clone(id)})
		}
	}
	sortResults(rs)
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s:%d", r.ID, r.Dist))
	}
	return out
}

func build(t *testing.T, c *corpus, opt BuildOptions) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.idx")
	if err := Build(path, c.records(), opt); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestQueriesExact checks every answer of several layouts against a
// brute-force scan, online and in batch, through the memory map and through
// positioned reads.
func TestQueriesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		k, blocks, blockSize int
		crowded              bool
	}{
		{3, 0, 0, false}, {3, 4, 7, false}, {3, 6, 64, false}, {2, 5, 3, false}, {1, 2, 16, false},
		{0, 1, 64, false}, {4, 8, 200, false}, {3, 0, 0, true}, {3, 4, 7, true}, {3, 5, 64, true},
	} {
		t.Run(fmt.Sprintf("k%d-b%d-s%d-crowded=%v", c.k, c.blocks, c.blockSize, c.crowded), func(t *testing.T) {
			cor := newCorpus(rng, 1500, c.k)
			if c.crowded {
				cor = crowdedCorpus(rng, 1500, c.k)
			}
			path := build(t, cor, BuildOptions{K: c.k, Blocks: c.blocks, BlockSize: c.blockSize, Jobs: 2})
			qs := cor.queries(rng, 600, c.k)
			qs = append(qs, qs[:40]...) // the same fingerprint asked twice
			for _, useMap := range []bool{true, false} {
				ix, err := open(path, useMap)
				if err != nil {
					t.Fatal(err)
				}
				if err := ix.Check(); err != nil {
					t.Fatal(err)
				}
				if ix.Records != uint64(len(cor.fps)) {
					t.Errorf("%d records, want %d", ix.Records, len(cor.fps))
				}
				s := ix.NewSearcher()
				for _, kk := range []int{c.k, c.k / 2} {
					var want [][]string
					for _, q := range qs {
						got, w := online(t, s, q, kk), cor.want(q, kk)
						if !slices.Equal(got, w) {
							t.Fatalf("query %016x, k=%d: index %v, brute force %v", q, kk, got, w)
						}
						want = append(want, w)
					}
					rs, err := ix.SearchBatch(qs, kk, 2)
					if err != nil {
						t.Fatal(err)
					}
					got := make([][]string, len(qs))
					for i := range rs.Len() {
						r := rs.Result(i)
						got[r.Q] = append(got[r.Q], fmt.Sprintf("%s:%d", r.ID, r.Dist))
					}
					for i := range qs {
						if !slices.Equal(got[i], want[i]) {
							t.Fatalf("batch query %016x, k=%d: %v, want %v", qs[i], kk, got[i], want[i])
						}
					}
				}
				if _, err := s.Search(nil, 0, c.k+1); err == nil {
					t.Errorf("a search beyond k = %d accepted", c.k)
				}
				ix.Close()
			}
		})
	}
}

// TestAddEqualsBuild checks that adding records to an index gives the file
// that building from all of them gives.
func TestAddEqualsBuild(t *testing.T) {
	for _, c := range []struct {
		opt     BuildOptions
		crowded bool
	}{
		{BuildOptions{K: 3, Blocks: 6, BlockSize: 32}, false},
		{BuildOptions{K: 3}, true},
	} {
		t.Run(fmt.Sprintf("b%d-crowded=%v", c.opt.Blocks, c.crowded), func(t *testing.T) {
			addEqualsBuild(t, c.opt, c.crowded)
		})
	}
}

func addEqualsBuild(t *testing.T, opt BuildOptions, crowded bool) {
	rng := rand.New(rand.NewPCG(2, 2))
	cor := newCorpus(rng, 2000, 3)
	if crowded {
		cor = crowdedCorpus(rng, 2000, 3)
	}
	dir := t.TempDir()
	first, second := &corpus{}, &corpus{}
	for i := range cor.fps {
		if i%3 == 0 {
			second.add(cor.fps[i], cor.ids[i])
		} else {
			first.add(cor.fps[i], cor.ids[i])
		}
	}
	// Records already in the index are added again: they stay once.
	second.add(first.fps[0], first.ids[0])
	whole := filepath.Join(dir, "whole.idx")
	if err := Build(whole, cor.records(), opt); err != nil {
		t.Fatal(err)
	}
	added := filepath.Join(dir, "added.idx")
	if err := Build(added, first.records(), opt); err != nil {
		t.Fatal(err)
	}
	if err := Add(added, second.records(), AddOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(added)
	if !bytes.Equal(a, b) {
		t.Fatalf("index built whole (%d bytes) and by add (%d bytes) differ", len(a), len(b))
	}
	// Building is deterministic for any number of jobs.
	other := filepath.Join(dir, "j1.idx")
	opt.Jobs = 1
	if err := Build(other, cor.records(), opt); err != nil {
		t.Fatal(err)
	}
	if c, _ := os.ReadFile(other); !bytes.Equal(a, c) {
		t.Fatal("-j 1 and -j 2 built different files")
	}
}

func TestChooseBlocks(t *testing.T) {
	for _, c := range []struct {
		k    int
		n    uint64
		want int
	}{
		{3, 1000, 4}, {3, 1_000_000, 4}, {3, 10_000_000, 4}, {3, 1<<24 + 1<<16 - 1, 4}, {3, 1<<24 + 1<<16, 5}, {3, 8_000_000_000, 5},
		{3, 9_000_000_000, 6}, {0, 1 << 40, 1}, {6, 10_000_000, 8}, {1, 1 << 40, 2},
	} {
		if got := ChooseBlocks(c.k, c.n); got != c.want {
			t.Errorf("ChooseBlocks(%d, %d) = %d, want %d", c.k, c.n, got, c.want)
		}
	}
}

// smallIndex builds an index of a few hundred fingerprints and returns its
// path and bytes.
func smallIndex(t *testing.T) (string, []byte) {
	t.Helper()
	return smallIndexFor(t, t.TempDir())
}

func smallIndexFor(t testing.TB, dir string) (string, []byte) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	cor := newCorpus(rng, 100, 2)
	r := cor.records()
	r.Headers.Add(record.NewHeader("sketch", "method", "simhash", "f", "64", "seed", "0"), record.Pos{})
	path := filepath.Join(dir, "small.idx")
	if err := Build(path, r, BuildOptions{K: 2, BlockSize: 16}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// openAndCheck opens an index and reads all of it.
func openAndCheck(path string) error {
	ix, err := Open(path)
	if err != nil {
		return err
	}
	defer ix.Close()
	return ix.Check()
}

// TestDamaged changes every byte of an index in turn and checks that the
// damage is found with a message that says so.
func TestDamaged(t *testing.T) {
	testutil.Slow(t)
	path, orig := smallIndex(t)
	if err := openAndCheck(path); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.idx")
	if err := os.WriteFile(bad, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(bad, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range orig {
		if _, err := f.WriteAt([]byte{orig[i] ^ 1<<(i%8)}, int64(i)); err != nil {
			t.Fatal(err)
		}
		err := openAndCheck(bad)
		if _, werr := f.WriteAt(orig[i:i+1], int64(i)); werr != nil {
			t.Fatal(werr)
		}
		if err == nil {
			t.Fatalf("byte %d of %d changed: the index was accepted", i, len(orig))
		}
		msg := err.Error()
		if !strings.Contains(msg, "damaged") && !strings.Contains(msg, "not a neardup index") && !strings.Contains(msg, "version") {
			t.Fatalf("byte %d changed: unclear message %q", i, msg)
		}
	}
}

// TestBatchDamaged changes a byte in each block of each table and of the
// ids in turn and checks that a batch reading every block refuses the index.
func TestBatchDamaged(t *testing.T) {
	path, orig := smallIndex(t)
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var qs []uint64 // every stored fingerprint: every block is read
	ix.entrySeq()(func(fp uint64, _ [][]byte) bool {
		qs = append(qs, fp)
		return true
	})
	var places []uint64
	for _, tb := range ix.tables {
		for i := range tb.blocks() {
			places = append(places, tb.off+(tb.offs[i]+tb.offs[i+1])/2)
		}
	}
	for i := range ix.ids.blocks() {
		places = append(places, ix.ids.off+ix.ids.offs[i])
	}
	ix.Close()
	bad := filepath.Join(t.TempDir(), "bad.idx")
	for _, at := range places {
		b := slices.Clone(orig)
		b[at] ^= 0x40
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(bad)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ix.SearchBatch(qs, ix.Scheme.K, 2)
		ix.Close()
		if err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("byte %d changed: %v", at, err)
		}
	}
}

// TestOldVersion checks that a file of format version 1 (huff0 blocks) is
// refused with a message that says to rebuild it.
func TestOldVersion(t *testing.T) {
	_, b := smallIndex(t)
	binary.LittleEndian.PutUint32(b[8:], 1)
	path := filepath.Join(t.TempDir(), "v1.idx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "format version 1; this program reads version 2: rebuild the index") {
		t.Fatalf("a version 1 file: %v", err)
	}
}

// TestTruncated cuts an index at every length.
func TestTruncated(t *testing.T) {
	_, orig := smallIndex(t)
	bad := filepath.Join(t.TempDir(), "short.idx")
	if err := os.WriteFile(bad, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	for n := len(orig) - 1; n >= 0; n-- {
		if err := os.Truncate(bad, int64(n)); err != nil {
			t.Fatal(err)
		}
		err := openAndCheck(bad)
		if err == nil {
			t.Fatalf("index cut to %d of %d bytes accepted", n, len(orig))
		}
		if n >= len(magic) && !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
	}
}

// TestAddInterrupted fails add at every step in turn, as an error the
// command survives and as a crash, and checks that the index then holds
// either all of the old or all of the new records, and can be read. The
// old index is read from the disk and the new one written to the shared
// fault-injecting file system, a write in pieces of 4 KiB so that a
// failure can come in the middle of the index; while path is not there,
// the old index on the disk is what a reader finds.
func TestAddInterrupted(t *testing.T) {
	testutil.Slow(t)
	rng := rand.New(rand.NewPCG(4, 4))
	cor := newCorpus(rng, 3000, 3)
	more := newCorpus(rng, 500, 3)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.idx")
	if err := Build(path, cor.records(), BuildOptions{K: 3}); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(path)
	wantNew := filepath.Join(t.TempDir(), "new.idx")
	if err := Build(wantNew, cor.records(), BuildOptions{K: 3}); err != nil {
		t.Fatal(err)
	}
	if err := Add(wantNew, more.records(), AddOptions{}); err != nil {
		t.Fatal(err)
	}
	newBytes, _ := os.ReadFile(wantNew)
	// Every step leaves one of these two, byte for byte: both can be read.
	for _, p := range []string{path, wantNew} {
		if err := openAndCheck(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, crash := range []bool{false, true} {
		steps := 0
		for failAt := 1; ; failAt++ {
			fsys := disktest.New()
			fsys.PieceSize = 4096
			if err := fsys.MkdirAll(dir); err != nil {
				t.Fatal(err)
			}
			fsys.FailAfter(failAt, crash)
			err := Add(path, more.records(), AddOptions{fs: fsys})
			if fsys.Passed() {
				// Every step passed: the last run added the records.
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := fsys.Recovered().Content(path); !bytes.Equal(got, newBytes) {
					t.Fatal("the uninterrupted add did not give the new index")
				}
				steps = failAt - 1
				break
			}
			if !errors.Is(err, disktest.ErrInjected) {
				t.Fatalf("crash=%v step %d: %v", crash, failAt, err)
			}
			after := fsys.After(crash)
			got, ok := after.Content(path)
			if !ok {
				got = old
			}
			if !bytes.Equal(got, old) && !bytes.Equal(got, newBytes) {
				t.Fatalf("crash=%v step %d: the index is neither the old nor the new one", crash, failAt)
			}
			names, _ := after.ReadDir(dir)
			for _, n := range names {
				if !crash && strings.HasPrefix(n, ".x.idx.tmp-") {
					t.Fatalf("step %d: the new file %v was left behind", failAt, n)
				}
			}
		}
		if steps < 10 {
			t.Fatalf("only %d steps: the test does not reach into the writing", steps)
		}
	}
}

func TestHeadersRefused(t *testing.T) {
	path, _ := smallIndex(t)
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	err = ix.CheckHeaders([]record.Header{record.NewHeader("sketch", "method", "simhash", "f", "64", "seed", "7")}, "q.tsv")
	if err == nil || !strings.Contains(err.Error(), "seed=7") || !strings.Contains(err.Error(), "seed=0") {
		t.Errorf("other seed: %v", err)
	}
	if err := ix.CheckHeaders([]record.Header{record.NewHeader("sketch", "method", "simhash", "f", "64", "seed", "0")}, "q.tsv"); err != nil {
		t.Errorf("same parameters refused: %v", err)
	}
	recs := &Records{}
	recs.Add(1, []byte("x"))
	recs.Headers.Add(record.NewHeader("sketch", "method", "simhash", "f", "64", "seed", "7"), record.Pos{File: "new.tsv"})
	before, _ := os.ReadFile(path)
	if err := Add(path, recs, AddOptions{}); err == nil {
		t.Error("records of another seed added")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a refused add changed the index")
	}
}

func TestStats(t *testing.T) {
	path, _ := smallIndex(t)
	ix, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var b strings.Builder
	if err := Stats(ix, true, &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"distinct", "bytes/fingerprint (raw 8)", "stage=sketch", "check:", "per block"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("stats lack %q:\n%s", want, b.String())
		}
	}
}

// benchIndex is an index of 2^20 random fingerprints, built once for the
// benchmarks, in the default layout (4 tables keyed on 16 bits).
var benchIndex struct {
	once sync.Once
	path string
	fps  []uint64
	err  error
}

func openBenchIndex(b *testing.B) (*Index, []uint64) {
	benchIndex.once.Do(func() {
		rng := rand.New(rand.NewPCG(9, 9))
		const n = 1 << 20
		recs := &Records{}
		benchIndex.fps = make([]uint64, n)
		for i := range benchIndex.fps {
			benchIndex.fps[i] = rng.Uint64()
			recs.Add(benchIndex.fps[i], []byte(strconv.Itoa(i)))
		}
		dir, err := os.MkdirTemp("", "neardup-bench-")
		if err != nil {
			benchIndex.err = err
			return
		}
		benchIndex.path = filepath.Join(dir, "bench.idx")
		benchIndex.err = Build(benchIndex.path, recs, BuildOptions{K: 3})
	})
	if benchIndex.err != nil {
		b.Fatal(benchIndex.err)
	}
	ix, err := Open(benchIndex.path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	return ix, benchIndex.fps
}

// BenchmarkSearch is one online query with a planted neighbour (2 bits
// away) against 2^20 fingerprints.
func BenchmarkSearch(b *testing.B) {
	ix, fps := openBenchIndex(b)
	s := ix.NewSearcher()
	var ms []Match
	var err error
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q := flipBits(fps[(i*7919)%len(fps)], i%64, (i*7)%64)
		ms, err = s.Search(ms[:0], q, 3)
		if err != nil || len(ms) == 0 {
			b.Fatal(err, len(ms))
		}
		i++
	}
}

// BenchmarkSearchBatch answers 2^17 queries (half planted) at once; ns/op is
// per batch, ns/query alongside.
func BenchmarkSearchBatch(b *testing.B) {
	ix, fps := openBenchIndex(b)
	rng := rand.New(rand.NewPCG(1, 2))
	qs := make([]uint64, 1<<17)
	for i := range qs {
		qs[i] = rng.Uint64()
		if i%2 == 0 {
			qs[i] = flipBits(fps[rng.IntN(len(fps))], rng.IntN(64))
		}
	}
	for b.Loop() {
		if _, err := ix.SearchBatch(qs, 3, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(qs)), "ns/query")
}

// A fingerprint shared by thousands of documents: a chunk of queries that
// each find all of them is answered as it goes (issue 16), not held whole,
// and the answers are the same for any number of workers.
func TestQueryStreams(t *testing.T) {
	c := &corpus{}
	const shared, queries = 3000, 400
	fp := uint64(0x0123456789abcdef)
	for i := range shared {
		c.add(fp, fmt.Sprintf("doc%06d", i))
	}
	path := build(t, c, BuildOptions{K: 3})
	var in strings.Builder
	for i := range queries {
		fmt.Fprintf(&in, "q%04d\t100\t%016x\n", i, flipBits(fp, i%64))
	}
	qfile := filepath.Join(t.TempDir(), "q.tsv")
	if err := os.WriteFile(qfile, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var want string
	for _, jobs := range []int{1, 2, 4} {
		var out testutil.LargestWrite
		opt := Options{Distance: -1, Common: stream.Common{Jobs: jobs}}
		if err := RunQuery(context.Background(), opt, path, []string{qfile}, &out, io.Discard); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), "\n"); n != 1+shared*queries {
			t.Fatalf("-j %d: %d lines, want %d", jobs, n, 1+shared*queries)
		}
		if jobs == 1 {
			want = out.String()
		} else if out.String() != want {
			t.Errorf("-j %d: answers differ from -j 1", jobs)
		}
		if out.Largest > stream.FlushSize+shared*64 {
			t.Errorf("-j %d: one write of %d bytes: the answers of a chunk of queries were held whole", jobs, out.Largest)
		}
	}
}
