// Package testutil holds the helpers that the tests of many packages share:
// files in a test's temporary directory, running a stage in process with its
// output captured, and the -short switch for slow tests.
//
// Every helper returns what a stage wrote in the same order, standard
// output first, then standard error, then the error or exit status.
package testutil

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFile writes content to a file called name in a new temporary
// directory of t and returns its path.
func WriteFile[C string | []byte](t testing.TB, name string, content C) string {
	t.Helper()
	return WriteFileIn(t, t.TempDir(), name, content)
}

// WriteFileIn writes content to the file called name in dir and returns
// its path.
func WriteFileIn[C string | []byte](t testing.TB, dir, name string, content C) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// StageRun is the shape of every stage's Run function: options, the input
// files (standard input when there are none) and the two output streams.
type StageRun[O any] func(ctx context.Context, opt O, inputs []string, stdout, stderr io.Writer) error

// Run calls a stage's Run with opt and inputs and returns what it wrote to
// standard output and standard error, and its error.
func Run[O any](t testing.TB, run StageRun[O], opt O, inputs ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), opt, inputs, &out, &errOut)
	return out.String(), errOut.String(), err
}

// Command runs a command-line entry point (a stage's cli.Run bound to its
// Stage) with args, and returns what it wrote and its exit status.
func Command(t testing.TB, main func(args []string, stdout, stderr io.Writer) int, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	status = main(args, &out, &errOut)
	return out.String(), errOut.String(), status
}

// Slow skips t under go test -short: the test takes seconds, and the short
// run is the loop developers run while they work (make test runs it all).
func Slow(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("slow: skipped under -short")
	}
}

// FuzzDir returns a new directory for the files of a fuzz target, removed
// when the test ends: under /dev/shm (a file system in memory) when there is
// one, since fuzzing on a disk stalls on its I/O, else in t's temporary
// directory.
func FuzzDir(t testing.TB) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "neardup-fuzz-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// LargestWrite is a writer that keeps what is written and the size of the
// largest single write: a stage that holds its output before writing it
// shows as one large write.
type LargestWrite struct {
	bytes.Buffer
	Largest int
}

func (w *LargestWrite) Write(b []byte) (int, error) {
	w.Largest = max(w.Largest, len(b))
	return w.Buffer.Write(b)
}

// Records is the lines of a stage's output that are not header lines
// (those that begin with #), each with its newline.
func Records(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if !strings.HasPrefix(line, "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// Vector runs test with a package's vector code off and then, where the
// CPU has it, on: on is the package's flag, set back at the end.
func Vector(t *testing.T, on *bool, test func(t *testing.T)) {
	t.Helper()
	had := *on
	t.Cleanup(func() { *on = had })
	for _, vector := range []bool{false, true} {
		if vector && !had {
			continue
		}
		*on = vector
		t.Run(fmt.Sprintf("vector=%v", vector), test)
	}
}
