package pairs

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

func runStage(t *testing.T, opt Options, inputs ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = Run(context.Background(), opt, inputs, &out, &errb)
	return out.String(), errb.String(), err
}

// modes runs both modes on the same input; the sorted mode gets the input
// sorted by key, as LC_ALL=C sort -t$'\t' -k1,1 -s would give it.
func modes(t *testing.T, opt Options, in string) (memory, sorted string) {
	t.Helper()
	out, stderr, err := runStage(t, opt, testutil.WriteFile(t, "keys.tsv", in))
	if err != nil {
		t.Fatalf("memory mode: %v (stderr %q)", err, stderr)
	}
	opt.Sorted = true
	sout, stderr, err := runStage(t, opt, testutil.WriteFile(t, "sorted.tsv", sortByKey(in)))
	if err != nil {
		t.Fatalf("sorted mode: %v (stderr %q)", err, stderr)
	}
	return out, sout
}

// sortByKey sorts record lines bytewise by their first field, stably.
func sortByKey(in string) string {
	lines := strings.SplitAfter(in, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	key := func(l string) string { k, _, _ := strings.Cut(l, "\t"); return k }
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return strings.Join(lines, "")
}

// bruteForce returns the expected output: every pair of distinct ids that
// share a key (only the maxBucket smallest ids of a bucket when > 0), once,
// idA < idB, sorted.
// capKeeps says whether the pair of the i-th and j-th smallest of n ids
// (i < j) is made under c: in a capped bucket, when j is among the first
// max ids (pairs as they arrive, while the bucket is small) or i among the
// representatives.
func capKeeps(c bucketCap, n, i, j int) bool {
	reps := c.reps
	if reps == 0 {
		reps = c.max
	}
	return c.max == 0 || n <= c.max || j < c.max || i < reps
}

func bruteForce(in string, c bucketCap) string {
	buckets := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSuffix(in, "\n"), "\n") {
		k, id, _ := strings.Cut(l, "\t")
		id, _, _ = strings.Cut(id, "\t")
		buckets[k] = append(buckets[k], id)
	}
	set := map[[2]string]bool{}
	for _, ids := range buckets {
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for i := range ids {
			for j := i + 1; j < len(ids); j++ {
				if !capKeeps(c, len(ids), i, j) {
					continue
				}
				set[[2]string{ids[i], ids[j]}] = true
			}
		}
	}
	var pairs []string
	for p := range set {
		pairs = append(pairs, p[0]+"\t"+p[1]+"\n")
	}
	slices.Sort(pairs)
	return strings.Join(pairs, "")
}

func TestSmall(t *testing.T) {
	in := "k1\tb\nk2\ta\nk1\ta\nk1\tc\nk2\tb\nk3\td\n"
	want := "a\tb\na\tc\nb\tc\n"
	mem, sorted := modes(t, Options{Common: stream.Common{NoHeader: true}}, in)
	if mem != want || sorted != want {
		t.Errorf("memory mode %q, sorted mode %q, want %q", mem, sorted, want)
	}
}

// randomBands returns band records: keys of 20 hex digits like band's and a
// few other keys, ids with bytes that sort in tricky ways (escapes, prefixes,
// '#', non-ASCII), repeated (key, id) records, and the Hamming third field.
func randomBands(rng *rand.Rand, records int) string {
	ids := []string{"a", "a\\tb", "a\\\\", "ab", "b", "B", "#x", "é", "10", "9", "doc-1", "doc-10", "doc-2"}
	for i := range 150 {
		ids = append(ids, fmt.Sprintf("d%03d", i))
	}
	keys := []string{"k", "other-key", "#key"}
	for range 60 {
		keys = append(keys, fmt.Sprintf("%04x%016x", rng.IntN(4), rng.Uint64()))
	}
	var b strings.Builder
	for range records {
		fmt.Fprintf(&b, "%s\t%s", keys[rng.IntN(len(keys))], ids[rng.IntN(len(ids))])
		if rng.IntN(10) == 0 {
			b.WriteString("\t0123456789abcdef")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestModesAgree: on random inputs both modes write the brute-force
// answer, byte for byte, also when the sorted mode spills to many runs.
func TestModesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		in := randomBands(rng, 50+rng.IntN(800))
		maxBucket, reps := 0, 0
		if i%3 == 0 {
			maxBucket = 1 + rng.IntN(12)
			reps = rng.IntN(maxBucket + 1) // 0: as many as maxBucket
		}
		opt := Options{Common: stream.Common{NoHeader: true}, MaxBucket: maxBucket, Reps: reps, MemoryBytes: int64(256 + rng.IntN(4000)), TempDir: t.TempDir()}
		mem, sorted := modes(t, opt, in)
		want := bruteForce(in, bucketCap{max: maxBucket, reps: reps})
		if mem != want {
			t.Fatalf("input %d, max-bucket %d: memory mode gives %d bytes, brute force %d", i, maxBucket, len(mem), len(want))
		}
		if sorted != want {
			t.Fatalf("input %d, max-bucket %d, memory %d: sorted mode gives %d bytes, brute force %d", i, maxBucket, opt.MemoryBytes, len(sorted), len(want))
		}
		if runs, _ := os.ReadDir(opt.TempDir); len(runs) != 0 {
			t.Fatalf("spilled runs left behind: %d files", len(runs))
		}
	}
}

// TestSpills: a small memory bound makes the sorted mode spill its pairs
// to runs on disk, merged into the same output. A temporary "directory"
// that is a file shows whether a spill was attempted.
func TestSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := randomBands(rng, 600)
	path := testutil.WriteFile(t, "sorted.tsv", sortByKey(in))
	want := bruteForce(in, bucketCap{})
	// At 512 bytes per run (each pair costs its bytes and 24 of index),
	// the answer needs many runs.
	runs := (len(want) + 24*strings.Count(want, "\n")) / 512
	t.Logf("about %d runs", runs)
	if runs < 10 {
		t.Fatalf("the input makes about %d runs, want at least 10", runs)
	}
	out, _, err := runStage(t, Options{Common: stream.Common{NoHeader: true}, Sorted: true, MemoryBytes: 512, TempDir: t.TempDir()}, path)
	if err != nil || out != want {
		t.Fatalf("with spills: err %v, output differs from the brute-force answer: %v", err, out != want)
	}
	notDir := testutil.WriteFile(t, "not-a-dir", "")
	if _, _, err := runStage(t, Options{Common: stream.Common{NoHeader: true}, Sorted: true, MemoryBytes: 512, TempDir: notDir}, path); err == nil {
		t.Errorf("memory 512: no spill attempted (a temporary directory that is a file went unnoticed)")
	}
	if out, _, err := runStage(t, Options{Common: stream.Common{NoHeader: true}, Sorted: true, TempDir: notDir}, path); err != nil || out != want {
		t.Errorf("default memory: err %v (a spill was attempted?), output equal %v", err, out == want)
	}
}

func TestUnsortedRefused(t *testing.T) {
	in := "k1\ta\nk2\tb\nk1\tc\n"
	_, _, err := runStage(t, Options{Sorted: true}, testutil.WriteFile(t, "keys.tsv", in))
	if err == nil || !strings.Contains(err.Error(), "keys.tsv:3: key k1 comes after k2") || !strings.Contains(err.Error(), "keys.tsv:2)") {
		t.Errorf("error %v, want keys.tsv:3 naming the key and where the previous one started", err)
	}
}

func TestMaxBucket(t *testing.T) {
	in := "k\te\nk\td\nk\tc\nk\tb\nk\ta\nj\ta\nj\tz\n"
	// a, b, c represent the bucket k: each is paired with every id of it;
	// d and e only with them.
	want := "a\tb\na\tc\na\td\na\te\na\tz\nb\tc\nb\td\nb\te\nc\td\nc\te\n"
	for _, sorted := range []bool{false, true} {
		input := in
		if sorted {
			input = sortByKey(in)
		}
		out, stderr, err := runStage(t, Options{Common: stream.Common{NoHeader: true}, MaxBucket: 3, Sorted: sorted}, testutil.WriteFile(t, "keys.tsv", input))
		if err != nil {
			t.Fatal(err)
		}
		if out != want {
			t.Errorf("sorted %v: got %q, want %q", sorted, out, want)
		}
		if wantMsg := "pairs: 1 bucket(s) held more than --max-bucket 3 ids (the largest 5): each id past their first 3 was paired with their 3 smallest only; 1 pair(s) not made"; !strings.Contains(stderr, wantMsg) {
			t.Errorf("sorted %v: stderr %q, want %q", sorted, stderr, wantMsg)
		}
	}
}

// TestReps: with --reps below --max-bucket a capped bucket's first ids
// are paired with each other, the later ones with the representatives.
func TestReps(t *testing.T) {
	in := "k\te\nk\td\nk\tc\nk\tb\nk\ta\nj\ta\nj\tz\n"
	want := "a\tb\na\tc\na\td\na\te\na\tz\nb\tc\n"
	for _, sorted := range []bool{false, true} {
		input := in
		if sorted {
			input = sortByKey(in)
		}
		out, stderr, err := runStage(t, Options{Common: stream.Common{NoHeader: true}, MaxBucket: 3, Reps: 1, Sorted: sorted}, testutil.WriteFile(t, "keys.tsv", input))
		if err != nil {
			t.Fatal(err)
		}
		if out != want {
			t.Errorf("sorted %v: got %q, want %q", sorted, out, want)
		}
		if wantMsg := "each id past their first 3 was paired with their 1 smallest only; 5 pair(s) not made"; !strings.Contains(stderr, wantMsg) {
			t.Errorf("sorted %v: stderr %q, want %q", sorted, stderr, wantMsg)
		}
	}
	out, _, err := runStage(t, Options{MaxBucket: 3, Reps: 1}, testutil.WriteFile(t, "keys.tsv", in))
	if err != nil || !strings.HasPrefix(out, "#neardup stage=pairs max-bucket=3 reps=1") {
		t.Errorf("header: %q, %v", out, err)
	}
}

func TestDuplicatesReported(t *testing.T) {
	in := "k\ta\nk\tb\nk\ta\n"
	for _, sorted := range []bool{false, true} {
		out, stderr, err := runStage(t, Options{Common: stream.Common{NoHeader: true}, Sorted: sorted}, testutil.WriteFile(t, "keys.tsv", in))
		if err != nil || out != "a\tb\n" || !strings.Contains(stderr, "1 repeated (key, id) record(s) ignored") {
			t.Errorf("sorted %v: out %q, stderr %q, err %v", sorted, out, stderr, err)
		}
	}
}

func TestHeadersAndBadLines(t *testing.T) {
	in := "#neardup stage=band scheme=minhash b=2 r=2 key=xxh64\nk\ta\nk\tb\n"
	out, _, err := runStage(t, Options{}, testutil.WriteFile(t, "keys.tsv", in))
	want := "#neardup stage=band scheme=minhash b=2 r=2 key=xxh64\n#neardup stage=pairs max-bucket=0\na\tb\n"
	if err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
	for _, sorted := range []bool{false, true} {
		_, _, err := runStage(t, Options{Sorted: sorted}, testutil.WriteFile(t, "keys.tsv", "k\ta\nno-tab\n"))
		if err == nil || !strings.Contains(err.Error(), "keys.tsv:2: want key TAB id") {
			t.Errorf("sorted %v: error %v, want keys.tsv:2", sorted, err)
		}
	}
	if out, _, err := runStage(t, Options{}, testutil.WriteFile(t, "keys.tsv", "")); err != nil || out != "" {
		t.Errorf("empty input: %q, %v; want no output", out, err)
	}
}

func BenchmarkMemoryMode(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	for d := range 20000 {
		for band := range 20 {
			// Most keys unique, some shared by a few documents.
			h := rng.Uint64()
			if rng.IntN(20) == 0 {
				h = uint64(rng.IntN(200))
			}
			fmt.Fprintf(&sb, "%04x%016x\tdoc-%d\n", band, h, d)
		}
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "keys.tsv")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		var out bytes.Buffer
		if err := Run(context.Background(), Options{}, []string{path}, &out, os.Stderr); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCapWarnsWithoutArrivalNumbers: a capped bucket whose ids are not
// arrival numbers (no ids=number in the shingle header) is paired against
// its smallest ids, not its earliest documents, and pairs says so.
func TestCapWarnsWithoutArrivalNumbers(t *testing.T) {
	in := "k\ta\nk\tb\nk\tc\n"
	const warning = "the ids are not arrival numbers"
	for _, c := range []struct {
		head string
		want bool
	}{
		{"", true},
		{"#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no\n", true},
		{"#neardup stage=shingle unit=char k=9 hash=tok64 seed=0 counts=no ids=number from=0\n", false},
	} {
		_, stderr, err := runStage(t, Options{MaxBucket: 2}, testutil.WriteFile(t, "keys.tsv", c.head+in))
		if err != nil || strings.Contains(stderr, warning) != c.want {
			t.Errorf("header %q: stderr %q, %v; want the warning %v", c.head, stderr, err, c.want)
		}
	}
}

// The pair buffer of the sorted mode holds at most --memory: its arrays
// whole (not only what they hold), the sorting scratch, and the old array
// beside the new one while one grows (issue 16: it peaked near 3×).
func TestPairBufferWithinLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, limit := range []int64{300, 5000, 1 << 20} {
		opt := &Options{MemoryBytes: limit, TempDir: t.TempDir()}
		if err := opt.Resolve(); err != nil {
			t.Fatal(err)
		}
		s := newSpiller(opt)
		peak := int64(0)
		for i := range 50000 {
			a := fmt.Sprintf("doc%0*d", 1+rng.IntN(20), i)
			b := a + "x"
			if !s.buf.room(len(a)+len(b)+2, limit) {
				if err := s.spill(); err != nil {
					t.Fatal(err)
				}
			}
			before := s.buf.size()
			if err := s.add([]byte(a), []byte(b)); err != nil {
				t.Fatal(err)
			}
			// Growing holds the old arrays and the new ones.
			peak = max(peak, s.buf.size()+min(before, s.buf.size()-before))
		}
		if peak > limit {
			t.Errorf("--memory %d: the buffer held %d bytes", limit, peak)
		}
		if s.runs.Len() == 0 {
			t.Errorf("--memory %d: never spilled", limit)
		}
		s.runs.Remove()
	}
}

// TestCopyKeys: under a band header with collapse=text (shingle
// --collapse), the bucket of a copy key pairs its ids with the smallest
// only, uncapped and uncounted as a cap, in memory, spilled and sorted; a
// band key is paired whole as ever.
func TestCopyKeys(t *testing.T) {
	const head = "#neardup stage=band scheme=minhash b=2 r=2 key=xxh64 collapse=text\n"
	in := head +
		"ffff00000000000000aa\t5\n" +
		"ffff00000000000000aa\t2\n" +
		"0000000000000000000b\t2\n" +
		"ffff00000000000000aa\t9\n" +
		"ffff00000000000000aa\t3\n" +
		"0000000000000000000b\t7\n" +
		"0000000000000000000b\t4\n"
	want := "2\t3\n2\t4\n2\t5\n2\t7\n2\t9\n4\t7\n"
	opt := Options{MaxBucket: 3, Reps: 1, Common: stream.Common{NoHeader: true}}
	mem, sorted := modes(t, opt, in)
	if mem != want || sorted != want {
		t.Errorf("memory mode:\n%s\nsorted mode:\n%s\nwant:\n%s", mem, sorted, want)
	}
	// Buckets of one document each, to be spilled.
	var pad strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&pad, "0001%016x\t1%05d\n", i, i)
	}
	out, stderr, spilled := runSpill(t, opt, in+pad.String(), 40000)
	if !spilled || out != want {
		t.Errorf("spilled (%v):\n%s\nwant:\n%s", spilled, out, want)
	}
	if !strings.Contains(stderr, "pairs: 3 document(s) of a copy key (shingle --collapse) paired with the first of their set only") || strings.Contains(stderr, "--max-bucket") {
		t.Errorf("stderr %q: want the copies counted, no bucket capped", stderr)
	}
	// Without the header's collapse=text, ffff is a band like any other.
	out, _, _ = runStage(t, opt, testutil.WriteFile(t, "plain.tsv", strings.Replace(in, " collapse=text", "", 1)))
	if out == want {
		t.Errorf("without collapse=text: %q, want the copy key's bucket capped as any", out)
	}
}
