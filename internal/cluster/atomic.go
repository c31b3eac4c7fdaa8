package cluster

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeFileAtomic writes a file through fn so that a crash leaves either the
// old file or the new one whole: it writes a temporary file beside it,
// syncs it, renames it into place and syncs the directory.
func writeFileAtomic(name string, fn func(w io.Writer) error) error {
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: the state is renamed into place, which would replace it", name)
	}
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := fn(f); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
