package disk

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A regular file is read again as it is; a pipe is copied to a tracked
// temporary file, which a signal (RemoveTemps) or Remove removes.
func TestCopiesReread(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("a\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	c := &Copies{Dir: dir, Pattern: "copy-*"}
	if got, err := c.Reread(regular); err != nil || got != regular {
		t.Fatalf("Reread(regular file) = %q, %v, want the file itself", got, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write([]byte("piped\n"))
		f.Close()
	}()
	copied, err := c.Reread(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(copied); err != nil || string(data) != "piped\n" {
		t.Fatalf("the copy of the pipe holds %q, %v", data, err)
	}
	temps.mu.Lock()
	_, tracked := temps.names[copied]
	temps.mu.Unlock()
	if !tracked {
		t.Errorf("the copy %s is not tracked for removal on a signal", copied)
	}
	c.Remove()
	if _, err := os.Stat(copied); !os.IsNotExist(err) {
		t.Errorf("the copy %s is left after Remove: %v", copied, err)
	}
	if _, err := os.Stat(regular); err != nil {
		t.Errorf("Remove removed the input itself: %v", err)
	}
}
