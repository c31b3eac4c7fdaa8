package bandindex

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// memFS is a file system in memory that keeps, besides the current state,
// what a crash would leave: the data of a file as of its last Sync, and the
// names of a directory as of its last SyncDir. Operations that change
// something are numbered; the one numbered failAt fails, and with crash set
// every later one fails too, as when the process has died at that step.
type memFS struct {
	files   map[string]*memFile // the current names
	durable map[string]*memFile // the names as of the last SyncDir of their directory
	dirs    map[string]bool
	ops     int
	failAt  int
	crash   bool
	dead    bool
	seq     int
}

type memFile struct {
	data, synced []byte
}

var errInjected = errors.New("injected failure")

func newMemFS() *memFS {
	return &memFS{files: map[string]*memFile{}, durable: map[string]*memFile{}, dirs: map[string]bool{}}
}

// step counts an operation and fails it when its turn has come.
func (m *memFS) step() error {
	if m.dead {
		return errInjected
	}
	m.ops++
	if m.ops == m.failAt {
		m.dead = m.crash
		return errInjected
	}
	return nil
}

// failAfter makes the n-th operation from now fail.
func (m *memFS) failAfter(n int, crash bool) {
	m.failAt, m.crash, m.dead = m.ops+n, crash, false
}

// recovered returns what a machine finds after a crash now: the durable
// names, each with its synced data.
func (m *memFS) recovered() *memFS {
	r := newMemFS()
	for d := range m.dirs {
		r.dirs[d] = true
	}
	for name, f := range m.durable {
		g := &memFile{data: append([]byte(nil), f.synced...), synced: append([]byte(nil), f.synced...)}
		r.files[name], r.durable[name] = g, g
	}
	return r
}

func (m *memFS) MkdirAll(dir string) error {
	if err := m.step(); err != nil {
		return err
	}
	m.dirs[filepath.Clean(dir)] = true
	return nil
}

func (m *memFS) CreateTemp(dir, pattern string) (tempFile, error) {
	if err := m.step(); err != nil {
		return nil, err
	}
	if !m.dirs[filepath.Clean(dir)] {
		return nil, &fs.PathError{Op: "create", Path: dir, Err: fs.ErrNotExist}
	}
	m.seq++
	name := filepath.Join(dir, strings.Replace(pattern, "*", fmt.Sprint(m.seq), 1))
	f := &memFile{}
	m.files[name] = f
	return &memTemp{m: m, f: f, name: name}, nil
}

type memTemp struct {
	m    *memFS
	f    *memFile
	name string
}

// Write writes half its bytes when it fails.
func (t *memTemp) Write(b []byte) (int, error) {
	if err := t.m.step(); err != nil {
		t.f.data = append(t.f.data, b[:len(b)/2]...)
		return len(b) / 2, err
	}
	t.f.data = append(t.f.data, b...)
	return len(b), nil
}

func (t *memTemp) Sync() error {
	if err := t.m.step(); err != nil {
		return err
	}
	t.f.synced = append(t.f.synced[:0], t.f.data...)
	return nil
}

func (t *memTemp) Close() error { return t.m.step() }
func (t *memTemp) Name() string { return t.name }

func (m *memFS) Rename(from, to string) error {
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

func (m *memFS) Remove(name string) error {
	if err := m.step(); err != nil {
		return err
	}
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

func (m *memFS) SyncDir(dir string) error {
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

type memReader struct {
	data []byte
}

func (r memReader) ReadAt(b []byte, off int64) (int, error) {
	if off >= int64(len(r.data)) {
		return 0, io.EOF
	}
	n := copy(b, r.data[off:])
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}
func (r memReader) Close() error { return nil }
func (r memReader) Size() int64  { return int64(len(r.data)) }

func (m *memFS) Open(name string) (readFile, error) {
	if m.dead {
		return nil, errInjected
	}
	f, ok := m.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return memReader{f.data}, nil
}

func (m *memFS) ReadDir(dir string) ([]string, error) {
	if m.dead {
		return nil, errInjected
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

func (m *memFS) Lock(dir string) (func(), error) {
	if m.dead {
		return nil, errInjected
	}
	return func() {}, nil
}
