package bandindex

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/neardup/neardup/internal/disk"
)

// An index may have more runs than files can be open at once (a daily add
// for years, never merged). Then merge merges them in rounds, each of at
// most budget.runs, the newest first, every round committed as a merge of
// its own (write.go); and the readers (OpenAll: pairs --against, dump)
// merge the newest runs the same way, into a temporary run, until the rest
// and it can be held open. A merge keeps each distinct record once, in
// order, so that the run a merge in rounds writes is the one a single
// merge writes, and a lookup finds the same ids.

// runFile is a run to open: where it is, and what it must be.
type runFile struct {
	path string
	e    runEntry
}

// mergeFiles opens files, merges their records and has write write them
// as a run; the files are closed after.
func mergeFiles(fsys fileSystem, files []runFile, write func(fill func(w *runWriter) error) (runEntry, error)) (runEntry, error) {
	runs := make([]*run, 0, len(files))
	defer func() {
		for _, r := range runs {
			r.f.Close()
		}
	}()
	for _, f := range files {
		r, err := openEntry(fsys, f.path, f.e)
		if err != nil {
			return runEntry{}, err
		}
		runs = append(runs, r)
	}
	src, err := newMerged(runs)
	if err != nil {
		return runEntry{}, err
	}
	return write(func(w *runWriter) error { return src.each(w.add) })
}

// groupSize returns how many of the newest of n runs the next round
// merges, for target runs to remain at most atOnce open at a time.
func groupSize(n, target, atOnce int) int { return min(atOnce, n-target+1) }

// OpenAll opens the index in dir with every run held open, for NewLookup
// and Dump. An index of more runs than can be open at once has its newest
// merged first, in rounds, into a temporary run in tempDir ("" is the
// system's temporary directory; Close removes it), as prog says on stderr.
func OpenAll(dir, tempDir, prog string, stderr io.Writer) (*Index, error) {
	return openAll(osFS{}, dir, fileBudget(), tempDir, prog, stderr)
}

func openAll(fsys fileSystem, dir string, b budget, tempDir, prog string, stderr io.Writer) (*Index, error) {
	for attempt := 1; ; attempt++ {
		ix, err := open(fsys, dir, b)
		if err != nil || ix.held {
			return ix, err
		}
		runs := len(ix.runs)
		merged, rounds, err := ix.mergeTemp(tempDir)
		if err == nil {
			fmt.Fprintf(stderr, "%s: %s has %d runs, more than %d can be open at once (open-file limit %d): merged the newest %d into a temporary run first, in %d round(s); bandindex merge %s merges them for good\n",
				prog, dir, runs, b.runs, b.files, merged, rounds, dir)
			return ix, nil
		}
		ix.Close()
		// A merge may have replaced runs while these were read: read the
		// manifest again.
		if !errors.Is(err, fs.ErrNotExist) || attempt == 3 {
			return nil, err
		}
	}
}

// mergeTemp merges the newest runs of the index into a temporary run in
// tempDir, in rounds, until the rest and it can be held open, and holds
// them. It returns the number of runs merged and of rounds.
func (ix *Index) mergeTemp(tempDir string) (merged, rounds int, err error) {
	files := make([]runFile, len(ix.m.runs))
	for i, e := range ix.m.runs {
		files[i] = runFile{path: filepath.Join(ix.Dir, e.name), e: e}
	}
	atOnce := ix.budget.runs
	for len(files) > atOnce {
		g := groupSize(len(files), atOnce, atOnce)
		var t runFile
		_, err := mergeFiles(ix.fs, files[len(files)-g:], func(fill func(w *runWriter) error) (runEntry, error) {
			var err error
			t, err = writeTemp(ix.fs, tempDir, fill)
			return t.e, err
		})
		if err != nil {
			return 0, 0, err
		}
		// Each round after the first merges the temporary run of the one
		// before, the newest.
		if ix.temp != "" {
			removeTemp(ix.fs, ix.temp)
		}
		ix.temp = t.path
		files = append(files[:len(files)-g], t)
		rounds++
	}
	// The index holds no run open (it has too many): hold these.
	ix.runs = ix.runs[:0]
	for _, f := range files {
		r, err := openEntry(ix.fs, f.path, f.e)
		if err != nil {
			return 0, 0, err
		}
		ix.runs = append(ix.runs, r)
	}
	ix.held = true
	return len(ix.m.runs) - len(files) + 1, rounds, nil
}

// writeTemp writes a temporary run in dir from the entries fill adds.
func writeTemp(fsys fileSystem, dir string, fill func(w *runWriter) error) (runFile, error) {
	f, err := fsys.CreateTemp(dir, "neardup-bandindex-*.run")
	if err != nil {
		return runFile{}, err
	}
	disk.Track(f.Name())
	w := newRunWriter(f)
	err = fill(w)
	var e runEntry
	if err == nil {
		e, err = w.finish(filepath.Base(f.Name()))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		removeTemp(fsys, f.Name())
		return runFile{}, err
	}
	return runFile{path: f.Name(), e: e}, nil
}

func removeTemp(fsys fileSystem, name string) {
	fsys.Remove(name)
	disk.Untrack(name)
}

// merge merges the newest runs of the index into one, so that at most
// maxRuns remain (at least 1): in rounds of at most budget.runs, the newest
// first, each committed. It returns the number of runs merged (0 when there
// were no more than maxRuns) and of rounds. The index is closed first.
func (ix *Index) merge(maxRuns int) (merged, rounds int, err error) {
	ix.Close()
	maxRuns = max(maxRuns, 1)
	if len(ix.m.runs) <= maxRuns {
		return 0, 0, nil
	}
	m := *ix.m
	merged = len(m.runs) - maxRuns + 1
	for len(m.runs) > maxRuns {
		if err := ix.mergeRound(&m, groupSize(len(m.runs), maxRuns, ix.budget.runs)); err != nil {
			return 0, rounds, err
		}
		rounds++
	}
	return merged, rounds, nil
}

// mergeRound merges the newest n runs m names into one, a new run beside
// them, and commits the manifest that names it in their place.
func (ix *Index) mergeRound(m *manifest, n int) error {
	keep := len(m.runs) - n
	old := m.runs[keep:]
	files := make([]runFile, len(old))
	for i, e := range old {
		files[i] = runFile{path: filepath.Join(ix.Dir, e.name), e: e}
	}
	name := runName(m.next)
	e, err := mergeFiles(ix.fs, files, func(fill func(w *runWriter) error) (runEntry, error) {
		return writeRun(ix.fs, ix.Dir, name, fill)
	})
	if err != nil {
		return err
	}
	if err := ix.fs.SyncDir(ix.Dir); err != nil {
		ix.fs.Remove(filepath.Join(ix.Dir, name))
		return err
	}
	next := *m
	next.next++
	next.runs = append(append([]runEntry(nil), m.runs[:keep]...), e)
	if renamed, err := commitManifest(ix.fs, ix.Dir, &next); err != nil {
		if !renamed {
			ix.fs.Remove(filepath.Join(ix.Dir, name))
		}
		return err
	}
	*m = next
	// Committed: the merged runs are no longer named. Their removal may
	// fail without harm (the next change removes them).
	for _, e := range old {
		ix.fs.Remove(filepath.Join(ix.Dir, e.name))
	}
	ix.fs.SyncDir(ix.Dir)
	return nil
}
