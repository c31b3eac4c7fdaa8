//go:build unix

package bandindex

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on name (made if missing), without
// waiting. The lock goes with the process, so a crash leaves none behind.
func lockFile(name string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: another bandindex command is changing this index", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return func() { f.Close() }, nil
}
