package index

import (
	"io"
	"os"
)

// fileSystem is what writing an index needs from the operating system; the
// tests replace it with one that fails at a chosen step, as a crash would.
type fileSystem interface {
	CreateTemp(dir, pattern string) (tempFile, error)
	Rename(from, to string) error
	Remove(name string) error
	// SyncDir makes a rename in dir durable.
	SyncDir(dir string) error
}

// tempFile is a file being written.
type tempFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

type osFS struct{}

func (osFS) CreateTemp(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }
func (osFS) Rename(from, to string) error                     { return os.Rename(from, to) }
func (osFS) Remove(name string) error                         { return os.Remove(name) }

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
