package bandindex

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"

	"github.com/neardup/neardup/internal/disk"
)

// Every change to an index writes new files and then replaces the manifest:
//
//  1. each new run is written to a temporary file (.tmp-*), synced, closed
//     and renamed to its name, a number the manifest has not used;
//  2. the directory is synced, so the runs' names are durable before any
//     manifest names them;
//  3. the new manifest is written to a temporary file, synced, closed and
//     renamed over MANIFEST, and the directory synced again: the commit;
//  4. a merge then removes the runs it replaced.
//
// Until the rename of step 3 the old manifest, and the runs it names, are
// untouched: a crash before it leaves the previous index (and files no
// manifest names, removed by the next change); a crash after it, the new
// one (and perhaps runs a merge replaced, removed likewise).

// writeRun writes a run file named name in dir from the entries fill adds.
// The directory is not synced: the caller syncs it once after its runs.
func writeRun(fsys fileSystem, dir, name string, fill func(w *runWriter) error) (runEntry, error) {
	var e runEntry
	t := disk.Target{Name: filepath.Join(dir, name), Pattern: ".tmp-" + name + "-*", NoDirSync: true}
	err := disk.WriteFile(fsys, t, func(f io.Writer) error {
		w := newRunWriter(f)
		if err := fill(w); err != nil {
			return err
		}
		var err error
		e, err = w.finish(name)
		return err
	})
	if err != nil {
		return runEntry{}, err
	}
	return e, nil
}

// commitManifest replaces the manifest of dir with m. renamed tells
// whether the new manifest took the old one's place, even if an error
// followed: the files it names must then stay.
func commitManifest(fsys fileSystem, dir string, m *manifest) (renamed bool, err error) {
	f, err := disk.Create(fsys, disk.Target{Name: filepath.Join(dir, manifestName), Pattern: ".tmp-" + manifestName + "-*"})
	if err != nil {
		return false, err
	}
	if _, err := f.Write(m.marshal()); err != nil {
		f.Abort()
		return false, err
	}
	err = f.Commit()
	return f.Renamed(), err
}

// removeLeftovers removes the files of dir that an interrupted change left:
// temporary files, and runs the manifest m does not name. It is called with
// the lock held.
func removeLeftovers(fsys fileSystem, dir string, m *manifest) error {
	names, err := fsys.ReadDir(dir)
	if err != nil {
		return err
	}
	named := map[string]bool{}
	for _, r := range m.runs {
		named[r.name] = true
	}
	removed := false
	for _, n := range names {
		if strings.HasPrefix(n, ".tmp-") || isRunName(n) && !named[n] {
			if err := fsys.Remove(filepath.Join(dir, n)); err != nil {
				return err
			}
			removed = true
		}
	}
	if removed {
		return fsys.SyncDir(dir)
	}
	return nil
}

// batchWriter turns a batch of band records into runs: it holds records up
// to limit bytes, then sorts them and writes them as a run.
type batchWriter struct {
	fs       fileSystem
	dir      string
	m        *manifest
	limit    int64
	entries  Entries
	added    []runEntry
	repeated int
}

func (b *batchWriter) add(key, id []byte) error {
	b.entries.Add(key, id)
	if b.entries.Bytes() >= b.limit {
		return b.flush()
	}
	return nil
}

func (b *batchWriter) flush() error {
	if b.entries.Len() == 0 {
		return nil
	}
	b.repeated += b.entries.Sort()
	name := runName(b.m.next)
	b.m.next++
	e, err := writeRun(b.fs, b.dir, name, func(w *runWriter) error {
		for i := range b.entries.Len() {
			if err := w.add(b.entries.At(i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.added = append(b.added, e)
	b.entries.Reset()
	return nil
}

// commit writes the last run and the manifest that adds the new runs. On
// an error before the manifest is replaced, the new runs are removed.
func (b *batchWriter) commit() error {
	err := b.flush()
	if err == nil {
		err = b.fs.SyncDir(b.dir)
	}
	if err != nil {
		b.abort()
		return err
	}
	b.m.runs = append(b.m.runs, b.added...)
	renamed, err := commitManifest(b.fs, b.dir, b.m)
	if err != nil && !renamed {
		b.abort()
	}
	return err
}

// abort removes the runs written, which no manifest names.
func (b *batchWriter) abort() {
	for _, e := range b.added {
		b.fs.Remove(filepath.Join(b.dir, e.name))
	}
}

// merged yields the entries of several runs in (key, id) order, each
// distinct entry once.
type merged struct {
	cursors []*cursor
}

func newMerged(runs []*run) (*merged, error) {
	m := &merged{}
	for _, r := range runs {
		c := newCursor(r)
		if c.next() {
			m.cursors = append(m.cursors, c)
		} else if c.err != nil {
			return nil, c.err
		}
	}
	return m, nil
}

// each calls fn with every distinct entry, in order.
func (m *merged) each(fn func(key, id []byte) error) error {
	var prevKey, prevID []byte
	started := false
	less := func(a, b *cursor) bool { return compareEntry(a.key, a.id, b.key, b.id) < 0 }
	return disk.Merge(m.cursors, less, func(c *cursor) (bool, error) {
		if !started || !bytes.Equal(c.key, prevKey) || !bytes.Equal(c.id, prevID) {
			if err := fn(c.key, c.id); err != nil {
				return false, err
			}
			prevKey = append(prevKey[:0], c.key...)
			prevID = append(prevID[:0], c.id...)
			started = true
		}
		if c.next() {
			return true, nil
		}
		return false, c.err
	})
}

// compareEntry orders records by key, then id, bytewise.
func compareEntry(k1, id1, k2, id2 []byte) int {
	if c := bytes.Compare(k1, k2); c != 0 {
		return c
	}
	return bytes.Compare(id1, id2)
}
