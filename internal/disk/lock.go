package disk

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Lock takes the writer lock of a file a run updates in place (a state
// file, an index): an exclusive flock on name, the lock file (made if
// missing), without waiting, held until unlock. While held, the lock file
// names its holder: pid, host and the time it was taken. A second run is
// refused with an error that says what holds it: "name: " + holding (such
// as "another seen run is changing this state"), then the holder. The lock
// goes with the process, so a crash leaves none behind.
func Lock(name, holding string) (unlock func(), err error) {
	return lockFile(name, holding)
}

// holder is what the lock file says while the lock is held.
func holder() string {
	host, err := os.Hostname()
	if err != nil {
		host = "an unknown host"
	}
	return fmt.Sprintf("pid %d on %s since %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
}

// heldError is the error that refuses a second run: what the lock file
// says of its holder, if it has said it yet.
func heldError(name, holding string, said []byte) error {
	who := strings.TrimSpace(string(said))
	if who == "" {
		who = "which has not yet written its pid"
	}
	return fmt.Errorf("%s: %s (%s); run again when it has finished", name, holding, who)
}
