package bandindex

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/testutil"
)

// state is what a test finds in an index: its records, or "" with the
// error when it can't be opened.
func state(t *testing.T, fsys fileSystem, dir string) (records string, runs int, err error) {
	t.Helper()
	ix, err := open(fsys, dir, fileBudget())
	if err != nil {
		return "", 0, err
	}
	defer ix.Close()
	if err := ix.Check(); err != nil {
		return "", 0, err
	}
	var out bytes.Buffer
	if err := Dump(context.Background(), ix, true, &out); err != nil {
		return "", 0, err
	}
	return out.String(), ix.Runs(), nil
}

// leftovers lists the files of dir the manifest does not account for.
func leftovers(t *testing.T, fsys memFS, dir string) []string {
	t.Helper()
	m, err := readManifest(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{manifestName: true}
	for _, r := range m.runs {
		named[r.name] = true
	}
	names, _ := fsys.ReadDir(dir)
	var left []string
	for _, n := range names {
		if !named[n] {
			left = append(left, n)
		}
	}
	return left
}

// interrupt runs op on a copy of base failing at every step in turn, as
// an error the command survives (crash false) or as a crash (the process
// dies: nothing after the step happens, and only what was synced survives).
// After each, the index must be readable and hold either what it held
// before or what op makes of it; once op completes, the latter. It returns
// the number of steps op takes.
func interrupt(t *testing.T, base memFS, dir string, op func(fsys memFS) error) int {
	t.Helper()
	retry := op
	old, oldRuns, err := state(t, base, dir)
	if err != nil && !strings.Contains(err.Error(), "not a band index") {
		t.Fatal(err)
	}
	whole := base.recovered()
	if err := op(whole); err != nil {
		t.Fatal(err)
	}
	new, newRuns, err := state(t, whole, dir)
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	for _, crash := range []bool{false, true} {
		for n := 1; ; n++ {
			fsys := base.recovered()
			fsys.FailAfter(n, crash)
			err := op(fsys)
			done := fsys.Passed()
			if done && err != nil {
				t.Fatalf("crash=%v step %d: op failed without a failure: %v", crash, n, err)
			}
			opErr := err
			after := memFS{fsys.After(crash)}
			got, runs, err := state(t, after, dir)
			switch {
			case err != nil && old == "" && strings.Contains(err.Error(), "not a band index"):
				// No index before (build), none yet.
				got, runs = "", oldRuns
			case err != nil:
				t.Fatalf("crash=%v step %d: the index can't be read: %v", crash, n, err)
			}
			isOld := got == old && runs == oldRuns
			isNew := got == new && runs == newRuns
			if opErr == nil && !isNew {
				// Only what follows the commit (a merge removing the runs
				// it replaced) may fail without failing the command.
				t.Fatalf("crash=%v step %d: op succeeded but left the old index", crash, n)
			}
			if done && !isNew || !isOld && !isNew {
				t.Fatalf("crash=%v step %d (done %v): %d runs, %d bytes of records: neither the old index (%d runs, %d bytes) nor the new (%d, %d)",
					crash, n, done, runs, len(got), oldRuns, len(old), newRuns, len(new))
			}
			if !crash && !isNew && old != "" {
				// A failure the command survived: it removed what it wrote.
				if left := leftovers(t, after, dir); len(left) > 0 {
					t.Fatalf("step %d: files left behind: %v", n, left)
				}
			}
			if crash && old == "" && !isNew {
				// A build that died: run again, it makes the index.
				if err := retry(after); err != nil {
					t.Fatalf("step %d: build after the crash: %v", n, err)
				}
				if got, _, err := state(t, after, dir); err != nil || got != new {
					t.Fatalf("step %d: build after the crash: %v", n, err)
				}
				if left := leftovers(t, after, dir); len(left) > 0 {
					t.Fatalf("step %d: files left behind after the build: %v", n, left)
				}
			}
			if crash && old != "" {
				// The next change removes what the crash left.
				if err := RunMerge(context.Background(), Options{MaxRuns: 1000, fs: after}, dir, &bytes.Buffer{}); err != nil {
					t.Fatalf("step %d: merge after the crash: %v", n, err)
				}
				if left := leftovers(t, after, dir); len(left) > 0 {
					t.Fatalf("step %d: files left behind after the next change: %v", n, left)
				}
			}
			if done {
				steps = max(steps, n-1)
				break
			}
		}
	}
	return steps
}

// TestInterrupted: build, add and merge fail at every step, each way, and
// the index stays readable: the old one until the new manifest is in place,
// the new one after.
func TestInterrupted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	const dir = "idx"
	b0, r0 := batch(rng, 0, 400, 10)
	b1, r1 := batch(rng, 400, 300, 10)
	in0 := testutil.WriteFile(t, "b0.tsv", b0)
	in1 := testutil.WriteFile(t, "b1.tsv", b1)
	ctx := context.Background()

	empty := newMemFS()
	steps := interrupt(t, empty, dir, func(fsys memFS) error {
		return RunBuild(ctx, Options{fs: fsys, MemoryBytes: 40 << 10}, dir, []string{in0}, &bytes.Buffer{})
	})
	t.Logf("build: %d steps", steps)

	built := newMemFS()
	if err := RunBuild(ctx, Options{fs: built, MemoryBytes: 40 << 10}, dir, []string{in0}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := state(t, built, dir); got != sortedUnique(r0) {
		t.Fatal("build: wrong records")
	}
	steps = interrupt(t, built, dir, func(fsys memFS) error {
		return RunAdd(ctx, Options{fs: fsys, MemoryBytes: 30 << 10}, dir, []string{in1}, &bytes.Buffer{})
	})
	t.Logf("add: %d steps", steps)

	added := built.recovered()
	if err := RunAdd(ctx, Options{fs: added, MemoryBytes: 30 << 10}, dir, []string{in1}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got, runs, _ := state(t, added, dir); got != sortedUnique(r0, r1) || runs < 4 {
		t.Fatalf("add: wrong records, or %d runs", runs)
	}
	steps = interrupt(t, added, dir, func(fsys memFS) error {
		return RunMerge(ctx, Options{fs: fsys}, dir, &bytes.Buffer{})
	})
	t.Logf("merge: %d steps", steps)
}
