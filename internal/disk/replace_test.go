package disk_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/disk"
	"github.com/neardup/neardup/internal/disk/disktest"
)

// write replaces d/f with data written in three pieces.
func write(fsys disk.FS, data string) error {
	return disk.WriteFile(fsys, disk.Target{Name: "d/f", Mode: 0o644}, func(w io.Writer) error {
		for len(data) > 0 {
			n := min(len(data), 10)
			if _, err := io.WriteString(w, data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		return nil
	})
}

// TestReplaceInterrupted fails the replacement of a file at every step in
// turn, as an error the command survives and as a crash, and checks that
// the file is then either the old one or the new one, whole; that a
// failure the command survived leaves no temporary file; and that once
// the replacement returns, the new file survives a crash.
func TestReplaceInterrupted(t *testing.T) {
	const old, new = "the old content, 30 bytes long", "the new content, longer: 35 bytes"
	base := disktest.New()
	if err := base.MkdirAll("d"); err != nil {
		t.Fatal(err)
	}
	if err := write(base, old); err != nil {
		t.Fatal(err)
	}
	for _, crash := range []bool{false, true} {
		for n := 1; ; n++ {
			fsys := base.Recovered()
			fsys.FailAfter(n, crash)
			err := write(fsys, new)
			if fsys.Passed() {
				if err != nil {
					t.Fatalf("crash=%v step %d: failed without a failure: %v", crash, n, err)
				}
				if got, _ := fsys.Recovered().Content("d/f"); string(got) != new {
					t.Fatalf("crash=%v: replaced, but after a crash d/f holds %q", crash, got)
				}
				if n < 8 {
					t.Fatalf("only %d steps", n-1)
				}
				break
			}
			if !errors.Is(err, disktest.ErrInjected) {
				t.Fatalf("crash=%v step %d: %v", crash, n, err)
			}
			after := fsys.After(crash)
			data, ok := after.Content("d/f")
			if got := string(data); !ok || got != old && got != new {
				t.Fatalf("crash=%v step %d: d/f holds %q (there: %v)", crash, n, got, ok)
			}
			names, _ := after.ReadDir("d")
			if !crash && len(names) != 1 {
				t.Fatalf("step %d: files left behind: %v", n, names)
			}
		}
	}
}

// TestNoDirSync: without the directory sync, the rename is not durable.
func TestNoDirSync(t *testing.T) {
	fsys := disktest.New()
	fsys.MkdirAll("d")
	f, err := disk.Create(fsys, disk.Target{Name: "d/run", Pattern: ".tmp-run-*", NoDirSync: true})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "x")
	if err := f.Commit(); err != nil || !f.Renamed() {
		t.Fatalf("commit: %v, renamed %v", err, f.Renamed())
	}
	if _, ok := fsys.Recovered().Content("d/run"); ok {
		t.Error("renamed without a directory sync, yet durable")
	}
	if err := fsys.SyncDir("d"); err != nil {
		t.Fatal(err)
	}
	if got, _ := fsys.Recovered().Content("d/run"); string(got) != "x" {
		t.Errorf("after the directory sync: %q", got)
	}
}

// TestNotRegular: a target that is not a regular file is refused, or
// written in place.
func TestNotRegular(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "adir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := disk.Create(disk.OS{}, disk.Target{Name: dir, What: "thing"})
	if err == nil || err.Error() != dir+" is not a regular file: the thing is renamed into place, which would replace it" {
		t.Errorf("a directory as the target: %v", err)
	}
	f, err := disk.Create(disk.OS{}, disk.Target{Name: os.DevNull, InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "x"); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil || f.Renamed() {
		t.Fatalf("in place: %v, renamed %v", err, f.Renamed())
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatalf("%s replaced: %v", os.DevNull, err)
	}
}

// TestReplaceOS replaces a file on the operating system, readable by all,
// and leaves nothing else.
func TestReplaceOS(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out")
	for _, data := range []string{"one", "two"} {
		err := disk.WriteFile(disk.OS{}, disk.Target{Name: name, Mode: 0o644, What: "out"}, func(w io.Writer) error {
			_, err := io.WriteString(w, data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(name); string(got) != data {
			t.Fatalf("got %q, want %q", got, data)
		}
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
	failed := errors.New("failed")
	err := disk.WriteFile(disk.OS{}, disk.Target{Name: name}, func(w io.Writer) error {
		io.WriteString(w, "three")
		return failed
	})
	if err != failed {
		t.Fatal(err)
	}
	names, _ := disk.OS{}.ReadDir(dir)
	if got, _ := os.ReadFile(name); string(got) != "two" || strings.Join(names, " ") != "out" {
		t.Errorf("after a failed write: %q, files %v", got, names)
	}
}
