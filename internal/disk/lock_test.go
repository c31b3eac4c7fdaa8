//go:build unix

package disk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/disk"
)

// TestLock: while one holds the lock, a second is refused with the
// holder's pid and host, and the lock file names it; once released, the
// lock is free and its file empty.
func TestLock(t *testing.T) {
	name := filepath.Join(t.TempDir(), "state.lock")
	unlock, err := disk.Lock(name, "another run is changing this state")
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	who := fmt.Sprintf("pid %d on %s since ", os.Getpid(), host)
	if said, _ := os.ReadFile(name); !strings.HasPrefix(string(said), who) {
		t.Errorf("the lock file says %q, want %q…", said, who)
	}
	_, err = disk.Lock(name, "another run is changing this state")
	if err == nil || !strings.Contains(err.Error(), name+": another run is changing this state ("+who) {
		t.Errorf("second lock: %v, want the holder, %s…", err, who)
	}
	unlock()
	if said, _ := os.ReadFile(name); len(said) != 0 {
		t.Errorf("the released lock file says %q", said)
	}
	unlock2, err := disk.Lock(name, "another run is changing this state")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock2()
}
