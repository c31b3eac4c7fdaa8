package bandindex

import (
	"io"
	"os"
	"path/filepath"
	"sort"
)

// fileSystem is what the index needs from the operating system. The tests
// replace it with one that keeps what a crash would keep (only synced data
// and synced directory entries) and stops at a chosen step.
type fileSystem interface {
	MkdirAll(dir string) error
	CreateTemp(dir, pattern string) (tempFile, error)
	Rename(from, to string) error
	Remove(name string) error
	// SyncDir makes the renames and removals in dir durable.
	SyncDir(dir string) error
	Open(name string) (readFile, error)
	// ReadDir lists the names of the files in dir, sorted.
	ReadDir(dir string) ([]string, error)
	// Lock takes the index's writer lock, or fails at once when another
	// process holds it.
	Lock(dir string) (unlock func(), err error)
}

// tempFile is a file being written.
type tempFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// readFile is a file being read.
type readFile interface {
	io.ReaderAt
	Close() error
	Size() int64
}

type osFS struct{}

func (osFS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

func (osFS) CreateTemp(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }

func (osFS) Rename(from, to string) error { return os.Rename(from, to) }

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

type osFile struct {
	*os.File
	size int64
}

func (f osFile) Size() int64 { return f.size }

func (osFS) Open(name string) (readFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return osFile{f, st.Size()}, nil
}

func (osFS) ReadDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

func (osFS) Lock(dir string) (func(), error) { return lockFile(filepath.Join(dir, lockName)) }
