package bandindex

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

	"github.com/neardup/neardup/internal/testutil"
)

// manyRuns builds, in dir of fsys, an index of the records of docs
// documents in many runs (a batch of 20 documents added at a time), and
// returns its records.
func manyRuns(t *testing.T, fsys fileSystem, dir string, docs int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 1))
	var all []string
	for first := 0; first < docs; first += 20 {
		b, recs := batch(rng, first, 20, 10)
		all = append(all, recs...)
		in := testutil.WriteFile(t, fmt.Sprintf("b%d.tsv", first), b)
		run := RunAdd
		if first == 0 {
			run = RunBuild
		}
		if err := run(context.Background(), Options{fs: fsys}, dir, []string{in}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	return sortedUnique(all)
}

// onlyRun returns the bytes of the one run the index at dir names.
func onlyRun(t *testing.T, fsys memFS, dir string) []byte {
	t.Helper()
	m, err := readManifest(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.runs) != 1 {
		t.Fatalf("%d runs, want 1", len(m.runs))
	}
	data, ok := fsys.Content(filepath.Join(dir, m.runs[0].name))
	if !ok {
		t.Fatalf("%s missing", m.runs[0].name)
	}
	return data
}

// TestMergeRounds: merge with at most 3 runs open at once merges in rounds,
// saying so, to the run one merge of every run writes, byte for byte, by
// way of --max-runs 4 or directly.
func TestMergeRounds(t *testing.T) {
	const dir = "idx"
	base := newMemFS()
	want := manyRuns(t, base, dir, 600)
	if m, _ := readManifest(base, dir); len(m.runs) < 20 {
		t.Fatalf("%d runs: want many", len(m.runs))
	}
	once := base.recovered()
	if err := RunMerge(context.Background(), Options{fs: once}, dir, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	wantRun := onlyRun(t, once, dir)

	rounds := base.recovered()
	var stderr bytes.Buffer
	if err := RunMerge(context.Background(), Options{fs: rounds, atOnce: 3}, dir, &stderr); err != nil {
		t.Fatal(err)
	}
	m, _ := readManifest(base, dir)
	if msg := fmt.Sprintf("bandindex: merged %d runs in %d rounds, at most 3 open at once (open-file limit 3)\n", len(m.runs), (len(m.runs)-1+1)/2); stderr.String() != msg {
		t.Errorf("stderr %q, want %q", stderr.String(), msg)
	}
	if !bytes.Equal(onlyRun(t, rounds, dir), wantRun) {
		t.Error("merged in rounds: not the run of one merge")
	}
	if got := dump(t, rounds, dir); got != want {
		t.Error("merged in rounds: other records")
	}
	if left := leftovers(t, rounds, dir); len(left) > 0 {
		t.Errorf("files left: %v", left)
	}

	twice := base.recovered()
	for _, maxRuns := range []int{4, 1} {
		if err := RunMerge(context.Background(), Options{fs: twice, atOnce: 3, MaxRuns: maxRuns}, dir, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(onlyRun(t, twice, dir), wantRun) {
		t.Error("merged in rounds to 4 runs, then to 1: not the run of one merge")
	}
}

// TestInterruptedRounds: a merge in rounds that fails or crashes at any
// step leaves an index that reads the same records, whatever rounds were
// committed, and the next merge writes the run one merge would have.
func TestInterruptedRounds(t *testing.T) {
	const dir = "idx"
	base := newMemFS()
	want := manyRuns(t, base, dir, 200)
	once := base.recovered()
	if err := RunMerge(context.Background(), Options{fs: once}, dir, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	wantRun := onlyRun(t, once, dir)
	if m, _ := readManifest(base, dir); len(m.runs) < 7 {
		t.Fatalf("%d runs: want 3 rounds or more", len(m.runs))
	}
	merge := func(fsys memFS) error {
		return RunMerge(context.Background(), Options{fs: fsys, atOnce: 3}, dir, &bytes.Buffer{})
	}
	for _, crash := range []bool{false, true} {
		for n := 1; ; n++ {
			fsys := base.recovered()
			fsys.FailAfter(n, crash)
			err := merge(fsys)
			done := fsys.Passed()
			if done && err != nil {
				t.Fatalf("crash=%v step %d: failed without a failure: %v", crash, n, err)
			}
			after := memFS{fsys.After(crash)}
			got, _, err := state(t, after, dir)
			if err != nil {
				t.Fatalf("crash=%v step %d: the index can't be read: %v", crash, n, err)
			}
			if got != want {
				t.Fatalf("crash=%v step %d: other records", crash, n)
			}
			if err := merge(after); err != nil {
				t.Fatalf("crash=%v step %d: merge again: %v", crash, n, err)
			}
			if !bytes.Equal(onlyRun(t, after, dir), wantRun) {
				t.Fatalf("crash=%v step %d: merged again: not the run of one merge", crash, n)
			}
			if left := leftovers(t, after, dir); len(left) > 0 {
				t.Fatalf("crash=%v step %d: files left: %v", crash, n, left)
			}
			if done {
				break
			}
		}
	}
}

// TestOpenAllRounds: an index of more runs than can be open at once is
// read whole by merging its newest runs into a temporary run first, in
// rounds, saying so: lookups find what they find in the index held open
// as it is, and Close removes the temporary run.
func TestOpenAllRounds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	manyRuns(t, osFS{}, dir, 600)
	held, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	runs := held.Runs()
	tmp := t.TempDir()
	var stderr bytes.Buffer
	ix, err := openAll(osFS{}, dir, budget{files: 10, runs: 5}, tmp, "pairs", &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Runs() != 5 {
		t.Errorf("%d runs held, want 5", ix.Runs())
	}
	msg := fmt.Sprintf("pairs: %s has %d runs, more than 5 can be open at once (open-file limit 10): merged the newest %d into a temporary run first, in %d round(s); bandindex merge %s merges them for good\n",
		dir, runs, runs-4, (runs-4-1+3)/4, dir)
	if stderr.String() != msg {
		t.Errorf("stderr %q, want %q", stderr.String(), msg)
	}
	var dumped, wantDump bytes.Buffer
	if err := Dump(context.Background(), ix, false, &dumped); err != nil {
		t.Fatal(err)
	}
	if err := Dump(context.Background(), held, false, &wantDump); err != nil {
		t.Fatal(err)
	}
	if dumped.String() != wantDump.String() {
		t.Error("dump differs")
	}
	keys := slices.Compact(slices.Sorted(func(yield func(string) bool) {
		for _, l := range strings.Split(strings.TrimSpace(wantDump.String()), "\n") {
			if k, _, _ := strings.Cut(l, "\t"); !strings.HasPrefix(l, "#") && !yield(k) {
				return
			}
		}
	}))
	for _, limit := range []int{0, 2} {
		l, wl := ix.NewLookup(), held.NewLookup()
		for _, k := range keys {
			got, err := l.IDs([]byte(k), limit)
			if err != nil {
				t.Fatal(err)
			}
			got = slices.Clone(got)
			want, err := wl.IDs([]byte(k), limit)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("limit %d, key %s: %q, want %q", limit, k, got, want)
			}
		}
	}
	if names, _ := os.ReadDir(tmp); len(names) != 1 {
		t.Errorf("temporary directory holds %d files, want the one run", len(names))
	}
	ix.Close()
	if names, _ := os.ReadDir(tmp); len(names) != 0 {
		t.Errorf("temporary run left after Close: %v", names)
	}
}
