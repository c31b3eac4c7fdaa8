package disk

import (
	"os"
	"sync"
)

// temps holds the names of the temporary files the process is writing and
// has not yet renamed or removed: the new content of targets (Create) and
// spilled runs (Runs). RemoveTemps removes them when a signal ends the
// process before the stage could.
var temps struct {
	mu    sync.Mutex
	names map[string]struct{}
}

// Track notes a temporary file, for RemoveTemps; Untrack forgets it once it
// is renamed or removed.
func Track(name string) {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	if temps.names == nil {
		temps.names = map[string]struct{}{}
	}
	temps.names[name] = struct{}{}
}

// Untrack forgets a temporary file noted by Track.
func Untrack(name string) {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	delete(temps.names, name)
}

// RemoveTemps removes every temporary file still tracked and returns how
// many it removed. The command line calls it when the process ends on a
// signal without the stage having returned; a process killed outright
// (SIGKILL, a crash) leaves them: .NAME.tmp-* beside an -o target or a
// stored file, and the runs in the temporary directory, safe to delete.
func RemoveTemps() int {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	n := 0
	for name := range temps.names {
		if os.Remove(name) == nil {
			n++
		}
		delete(temps.names, name)
	}
	return n
}
