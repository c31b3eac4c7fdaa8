package cli

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func pipeSizeOf(t *testing.T, f *os.File) int {
	t.Helper()
	size, err := unix.FcntlInt(f.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	return size
}

// A pipe grows to pipeSize from either end; a regular file is left alone.
func TestGrowPipe(t *testing.T) {
	probe, w0, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	_, err = unix.FcntlInt(probe.Fd(), unix.F_SETPIPE_SZ, pipeSize)
	probe.Close()
	w0.Close()
	if err != nil {
		t.Skipf("this machine does not let pipes grow to %d bytes: %v", pipeSize, err)
	}
	for _, end := range []string{"read", "write"} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if got := pipeSizeOf(t, r); got >= pipeSize {
			t.Fatalf("a new pipe already holds %d bytes", got)
		}
		f := r
		if end == "write" {
			f = w
		}
		growPipe(f)
		if got := pipeSizeOf(t, r); got != pipeSize {
			t.Errorf("after growPipe on the %s end: %d bytes, want %d", end, got, pipeSize)
		}
		r.Close()
		w.Close()
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	growPipe(f) // must not fail or change anything
	f.Close()
}
