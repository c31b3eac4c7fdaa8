package disk

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveTemps checks that the temporary files of targets not yet
// committed are removed, and nothing else: not a committed target, not a
// run already removed.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	done, err := Create(OS{}, Target{Name: filepath.Join(dir, "done")})
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	open, err := Create(OS{}, Target{Name: filepath.Join(dir, "open")})
	if err != nil {
		t.Fatal(err)
	}
	open.Write([]byte("half"))
	rs := &Runs{Dir: dir, Pattern: "run-*", What: "test"}
	for range 2 {
		if err := rs.Spill(func(w *bufio.Writer) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if n := RemoveTemps(); n != 3 {
		t.Errorf("RemoveTemps removed %d files, want 3 (a target's new content, two runs)", n)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "done" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left %q, want the committed target only", names)
	}
	rs.Remove()
	open.Abort()
	if n := RemoveTemps(); n != 0 {
		t.Errorf("RemoveTemps removed %d files after the stage cleaned up", n)
	}
}
