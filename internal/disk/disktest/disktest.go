// Package disktest is a file system in memory for the crash tests of
// packages that write through a disk.FS: it fails at a chosen step, and
// keeps, besides the current state, what a crash would leave.
package disktest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/neardup/neardup/internal/disk"
)

// ErrInjected is the error of the failing step.
var ErrInjected = errors.New("injected failure")

// FS is a disk.FS in memory that keeps what a crash would leave: the data
// of a file as of its last Sync, and the names of a directory as of its
// last SyncDir. Operations that change something are numbered; the one
// FailAfter chose fails, and after a crash every later one fails too, as
// when the process has died at that step.
type FS struct {
	// PieceSize, when not 0, cuts a write into pieces of that many bytes,
	// each an operation, so that a failure can come in the middle of a
	// large write.
	PieceSize int

	files   map[string]*file // the current names
	durable map[string]*file // the names as of the last SyncDir of their directory
	dirs    map[string]bool
	ops     int
	failAt  int
	crash   bool
	dead    bool
	seq     int
}

type file struct {
	data, synced []byte
}

// New returns an empty file system.
func New() *FS {
	return &FS{files: map[string]*file{}, durable: map[string]*file{}, dirs: map[string]bool{}}
}

// step counts an operation and fails it when its turn has come.
func (m *FS) step() error {
	if m.dead {
		return ErrInjected
	}
	m.ops++
	if m.ops == m.failAt {
		m.dead = m.crash
		return ErrInjected
	}
	return nil
}

// FailAfter makes the n-th operation from now fail, and with crash every
// one after it too; n 0 makes none fail.
func (m *FS) FailAfter(n int, crash bool) {
	m.failAt, m.crash, m.dead = 0, crash, false
	if n > 0 {
		m.failAt = m.ops + n
	}
}

// Ops is the number of operations so far.
func (m *FS) Ops() int { return m.ops }

// Passed tells whether the operation FailAfter chose has not come: every
// operation since succeeded.
func (m *FS) Passed() bool { return m.ops < m.failAt }

// Recovered returns what a machine finds after a crash now: the durable
// names, each with its synced data.
func (m *FS) Recovered() *FS {
	r := New()
	r.PieceSize = m.PieceSize
	for d := range m.dirs {
		r.dirs[d] = true
	}
	for name, f := range m.durable {
		g := &file{data: append([]byte(nil), f.synced...), synced: append([]byte(nil), f.synced...)}
		r.files[name], r.durable[name] = g, g
	}
	return r
}

// After returns what is found once an operation has failed: after a
// crash, what a machine recovers; else the file system itself. Neither
// fails any more.
func (m *FS) After(crash bool) *FS {
	if crash {
		return m.Recovered()
	}
	m.FailAfter(0, false)
	return m
}

// Content returns the data of the file name, and whether it is there.
func (m *FS) Content(name string) ([]byte, bool) {
	f, ok := m.files[name]
	if !ok {
		return nil, false
	}
	return f.data, true
}

// MkdirAll makes dir (only dir: parents are not kept).
func (m *FS) MkdirAll(dir string) error {
	if err := m.step(); err != nil {
		return err
	}
	m.dirs[filepath.Clean(dir)] = true
	return nil
}

// CreateTemp makes a file in dir, which must have been made.
func (m *FS) CreateTemp(dir, pattern string) (disk.TempFile, error) {
	if err := m.step(); err != nil {
		return nil, err
	}
	if !m.dirs[filepath.Clean(dir)] {
		return nil, &fs.PathError{Op: "create", Path: dir, Err: fs.ErrNotExist}
	}
	m.seq++
	name := filepath.Join(dir, strings.Replace(pattern, "*", fmt.Sprint(m.seq), 1))
	f := &file{}
	m.files[name] = f
	return &tempFile{m: m, f: f, name: name}, nil
}

type tempFile struct {
	m    *FS
	f    *file
	name string
}

// Write writes half of the failing piece.
func (t *tempFile) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		piece := b
		if t.m.PieceSize > 0 {
			piece = b[:min(len(b), t.m.PieceSize)]
		}
		if err := t.m.step(); err != nil {
			t.f.data = append(t.f.data, piece[:len(piece)/2]...)
			return n + len(piece)/2, err
		}
		t.f.data = append(t.f.data, piece...)
		n += len(piece)
		b = b[len(piece):]
	}
	return n, nil
}

func (t *tempFile) Chmod(fs.FileMode) error { return t.m.step() }

func (t *tempFile) Sync() error {
	if err := t.m.step(); err != nil {
		return err
	}
	t.f.synced = append(t.f.synced[:0], t.f.data...)
	return nil
}

func (t *tempFile) Close() error { return t.m.step() }
func (t *tempFile) Name() string { return t.name }

// Rename renames a file.
func (m *FS) Rename(from, to string) error {
	if err := m.step(); err != nil {
		return err
	}
	f, ok := m.files[from]
	if !ok {
		return &fs.PathError{Op: "rename", Path: from, Err: fs.ErrNotExist}
	}
	delete(m.files, from)
	m.files[to] = f
	return nil
}

// Remove removes a file.
func (m *FS) Remove(name string) error {
	if err := m.step(); err != nil {
		return err
	}
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

// SyncDir makes the names in dir durable.
func (m *FS) SyncDir(dir string) error {
	if err := m.step(); err != nil {
		return err
	}
	dir = filepath.Clean(dir)
	for name := range m.durable {
		if filepath.Dir(name) == dir {
			delete(m.durable, name)
		}
	}
	for name, f := range m.files {
		if filepath.Dir(name) == dir {
			m.durable[name] = f
		}
	}
	return nil
}

type reader struct {
	data []byte
}

// Reader is data as a file being read.
func Reader(data []byte) disk.ReadFile { return reader{data} }

func (r reader) ReadAt(b []byte, off int64) (int, error) {
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(b, r.data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}
func (r reader) Close() error { return nil }
func (r reader) Size() int64  { return int64(len(r.data)) }

// Open opens a file for reading; it is not an operation, but fails after
// a crash.
func (m *FS) Open(name string) (disk.ReadFile, error) {
	if m.dead {
		return nil, ErrInjected
	}
	f, ok := m.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return reader{f.data}, nil
}

// ReadDir lists the names in dir, sorted; it is not an operation, but fails
// after a crash.
func (m *FS) ReadDir(dir string) ([]string, error) {
	if m.dead {
		return nil, ErrInjected
	}
	var names []string
	for name := range m.files {
		if filepath.Dir(name) == filepath.Clean(dir) {
			names = append(names, filepath.Base(name))
		}
	}
	sort.Strings(names)
	return names, nil
}
