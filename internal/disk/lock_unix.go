//go:build unix

package disk

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

func lockFile(name, holding string) (func(), error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			said, _ := io.ReadAll(io.LimitReader(f, 256))
			return nil, heldError(name, holding, said)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.WriteAt([]byte(holder()+"\n"), 0); err != nil {
		f.Close()
		return nil, err
	}
	// Emptied before it is released: a lock file that names a holder is
	// held.
	return func() { f.Truncate(0); f.Close() }, nil
}
