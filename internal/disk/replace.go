package disk

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Target is a file to replace atomically, and how.
type Target struct {
	Name string
	// Pattern names the temporary file in Name's directory, as in
	// os.CreateTemp; "" means "."+base(Name)+".tmp-*".
	Pattern string
	// Mode, when not 0, is given to the new file (a temporary file is
	// made readable by its owner only).
	Mode fs.FileMode
	// What names the file in the error that refuses a Name that exists
	// and is not a regular file (a rename would replace the device, pipe
	// or directory); "" does not look.
	What string
	// InPlace writes to a Name that exists and is not a regular file (-o
	// /dev/null, a FIFO) in place instead.
	InPlace bool
	// NoDirSync leaves the directory unsynced after the rename, for a
	// caller that syncs it once after several.
	NoDirSync bool
}

// File is the new content of a target, written beside it until Commit
// renames it into place.
type File struct {
	fsys    FS
	f       TempFile // nil once committed or aborted
	t       Target
	inPlace bool
	renamed bool
}

// Create starts replacing the target: it makes the temporary file the
// content is written to. The target is looked at on the operating system,
// where alone devices and pipes are.
func Create(fsys FS, t Target) (*File, error) {
	if t.InPlace || t.What != "" {
		if st, err := os.Stat(t.Name); err == nil && !st.Mode().IsRegular() {
			if !t.InPlace {
				return nil, fmt.Errorf("%s is not a regular file: the %s is renamed into place, which would replace it", t.Name, t.What)
			}
			f, err := os.OpenFile(t.Name, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &File{fsys: fsys, f: f, t: t, inPlace: true}, nil
		}
	}
	pattern := t.Pattern
	if pattern == "" {
		pattern = "." + filepath.Base(t.Name) + ".tmp-*"
	}
	f, err := fsys.CreateTemp(filepath.Dir(t.Name), pattern)
	if err != nil {
		return nil, err
	}
	Track(f.Name())
	return &File{fsys: fsys, f: f, t: t}, nil
}

// Write writes to the new content.
func (f *File) Write(b []byte) (int, error) { return f.f.Write(b) }

// Commit puts the new content in place: it sets the mode, syncs and closes
// the file, renames it over the target and syncs the directory. A failure
// before the rename removes the new file and leaves the target untouched.
// Written in place, Commit closes the file.
func (f *File) Commit() error {
	tmp := f.f
	f.f = nil
	if f.inPlace {
		return tmp.Close()
	}
	defer Untrack(tmp.Name())
	fail := func(err error) error {
		tmp.Close()
		f.fsys.Remove(tmp.Name())
		return err
	}
	if f.t.Mode != 0 {
		if err := tmp.Chmod(f.t.Mode); err != nil {
			return fail(err)
		}
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		f.fsys.Remove(tmp.Name())
		return err
	}
	if err := f.fsys.Rename(tmp.Name(), f.t.Name); err != nil {
		f.fsys.Remove(tmp.Name())
		return err
	}
	f.renamed = true
	if f.t.NoDirSync {
		return nil
	}
	return f.fsys.SyncDir(filepath.Dir(f.t.Name))
}

// Renamed tells whether Commit put the new content in place, also when the
// directory sync that follows failed.
func (f *File) Renamed() bool { return f.renamed }

// Abort closes and removes the new content, if it was not committed; the
// target stays as it was. Written in place, Abort closes the file.
func (f *File) Abort() {
	if f.f == nil {
		return
	}
	f.f.Close()
	if !f.inPlace {
		f.fsys.Remove(f.f.Name())
		Untrack(f.f.Name())
	}
	f.f = nil
}

// WriteFile replaces the target with what fn writes: Create, fn, then
// Commit, or Abort when fn fails.
func WriteFile(fsys FS, t Target, fn func(w io.Writer) error) error {
	f, err := Create(fsys, t)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
