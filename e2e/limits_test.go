package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCommand returns a command of the script's $PATH run in its
// directory with its environment (as far as these tests need it).
func scriptCommand(ts *testscript.TestScript, name string, args ...string) *exec.Cmd {
	path := name
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, name); fileExists(p) {
			path = p
			break
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "PATH="+ts.Getenv("PATH"))
	for _, k := range []string{"NEARDUP_MAX_LINE", "HOME", "TMPDIR"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	return cmd
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// exitStatus returns the status of a finished command, 128+N when a signal
// N ended it (as a shell says).
func exitStatus(ts *testscript.TestScript, err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		ts.Fatalf("%v", err)
	}
	if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		return 128 + int(st.Signal())
	}
	return ee.ExitCode()
}

// cmdHeadOne runs a program as "program args… | head -1" runs it: its
// standard output is a pipe closed after the first line. It checks the
// program's exit status, which must be 0 (the docs promise it), not 141
// (killed by SIGPIPE):
//
//	headone shingle big.tsv
//
// The program's standard error goes to the script's stderr.
func cmdHeadOne(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: headone program [args...]")
	}
	cmd := scriptCommand(ts, args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	ts.Check(err)
	ts.Check(cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		ts.Fatalf("%s wrote no line: %v", args[0], err)
	}
	out.Close()
	status := exitStatus(ts, cmd.Wait())
	ts.Stdout().Write([]byte(line))
	ts.Stderr().Write(stderr.Bytes())
	if status != 0 {
		ts.Fatalf("%s | head -1: %s exited with status %d, want 0", args[0], args[0], status)
	}
}

// cmdInterrupt starts a program, sends it a signal once it has run for a
// while (500ms, or -after D), and checks that it ends within 10 seconds
// with the status given:
//
//	interrupt [-after 500ms] INT|TERM STATUS program [args...]
//
// A program the signal kills outright (status 128+N) got it before it could
// catch it, on a loaded machine: it is run again, waiting twice as long,
// up to four times. The program's standard output and error go to the
// script's.
func cmdInterrupt(ts *testscript.TestScript, neg bool, args []string) {
	after := 500 * time.Millisecond
	if len(args) > 1 && args[0] == "-after" {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		after, args = d, args[2:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf("usage: interrupt [-after D] INT|TERM STATUS program [args...]")
	}
	sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[strings.TrimPrefix(args[0], "SIG")]
	if !ok {
		ts.Fatalf("interrupt: signal %q: want INT or TERM", args[0])
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	for try := 1; ; try++ {
		got, stdout, stderr := interruptOnce(ts, after, sig, args[2:])
		if got == 128+int(sig) && try < 4 {
			after *= 2
			continue
		}
		ts.Stdout().Write(stdout)
		ts.Stderr().Write(stderr)
		if got != want {
			ts.Fatalf("%s exited with status %d after SIG%s, want %d", args[2], got, args[0], want)
		}
		return
	}
}

// interruptOnce runs a program, signals it after a while and returns its
// exit status and output.
func interruptOnce(ts *testscript.TestScript, after time.Duration, sig syscall.Signal, args []string) (int, []byte, []byte) {
	cmd := scriptCommand(ts, args[0], args[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ts.Stdout().Write(stdout.Bytes())
		ts.Stderr().Write(stderr.Bytes())
		ts.Fatalf("%s ended before the signal: %v", args[0], err)
	case <-time.After(after):
	}
	ts.Check(cmd.Process.Signal(sig))
	select {
	case err := <-done:
		return exitStatus(ts, err), stdout.Bytes(), stderr.Bytes()
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		ts.Stdout().Write(stdout.Bytes())
		ts.Stderr().Write(stderr.Bytes())
		ts.Fatalf("%s ignored %v for 10 seconds", args[0], sig)
	}
	return 0, nil, nil
}
