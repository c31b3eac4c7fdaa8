// Package disk writes files the one safe way and spills sorted runs.
//
// A file that outlives the command (the -o output, cluster's --state, an
// index, a band index's runs and manifest) is replaced atomically: the new
// content goes to a temporary file beside the target, which is synced,
// closed and renamed over the target, and the directory is synced, so that
// a crash leaves either the old file or the new one whole (Create,
// WriteFile). Those steps go through an FS, which the crash tests replace
// with one that fails at a chosen step (package disktest).
//
// A run that updates a file in place holds its writer lock from the load to
// the rename, so that two runs at once never each save over the other
// (Lock).
//
// A stage whose data can outgrow memory sorts what it holds into a run in a
// temporary file when its buffer is full, and merges the runs at the end
// (Runs, Merge).
//
// The binary files that stay (an index, a band index's runs) end in a
// footer of little-endian fields, read back with Footer.
package disk

import (
	"io"
	"io/fs"
	"os"
	"sort"
)

// FS is what writing and reading durable files needs from the operating
// system.
type FS interface {
	MkdirAll(dir string) error
	CreateTemp(dir, pattern string) (TempFile, error)
	Rename(from, to string) error
	Remove(name string) error
	// SyncDir makes the renames and removals in dir durable.
	SyncDir(dir string) error
	Open(name string) (ReadFile, error)
	// ReadDir lists the names of the files in dir, sorted.
	ReadDir(dir string) ([]string, error)
}

// TempFile is a file being written.
type TempFile interface {
	io.Writer
	Chmod(mode fs.FileMode) error
	Sync() error
	Close() error
	Name() string
}

// ReadFile is a file being read.
type ReadFile interface {
	io.ReaderAt
	Close() error
	Size() int64
}

// OS is the operating system's file system.
type OS struct{}

// MkdirAll makes dir and its parents, readable by all.
func (OS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// CreateTemp is os.CreateTemp.
func (OS) CreateTemp(dir, pattern string) (TempFile, error) { return os.CreateTemp(dir, pattern) }

// Rename is os.Rename.
func (OS) Rename(from, to string) error { return os.Rename(from, to) }

// Remove is os.Remove.
func (OS) Remove(name string) error { return os.Remove(name) }

// SyncDir syncs the directory dir.
func (OS) SyncDir(dir string) error {
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

// Open opens name for reading.
func (OS) Open(name string) (ReadFile, error) {
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

// ReadDir lists the names in dir, sorted.
func (OS) ReadDir(dir string) ([]string, error) {
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
