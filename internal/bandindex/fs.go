package bandindex

import (
	"path/filepath"

	"github.com/neardup/neardup/internal/disk"
)

// fileSystem is what the index needs from the operating system: a disk.FS
// and the writer lock. The tests replace it with disktest's, which keeps
// what a crash would keep (only synced data and synced directory entries)
// and stops at a chosen step.
type fileSystem interface {
	disk.FS
	// Lock takes the index's writer lock, or fails at once when another
	// process holds it.
	Lock(dir string) (unlock func(), err error)
}

type osFS struct{ disk.OS }

func (osFS) Lock(dir string) (func(), error) {
	return disk.Lock(filepath.Join(dir, lockName), "another bandindex command is changing this index")
}
