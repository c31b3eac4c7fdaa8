package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

// supervisedEnv marks the stage run by superviseMemory; the child removes
// it, so that nothing it starts takes it.
const supervisedEnv = "NEARDUP_SUPERVISED"

// superviseMemory runs the stage as a child of this process when a hard
// limit on its memory is set (ulimit -d or -v), so that a death out of
// memory ends with a message and status 1 rather than with the runtime's
// "fatal error: out of memory", its goroutine dump and status 2, the
// status of bad input. The runtime ends the process inside the failed
// allocation, where nothing in it can act; its parent can.
//
// The child is the same program with the same arguments, standard input
// and output and every other inherited descriptor; its standard error
// passes through this process as it comes (oomFilter). SIGINT, SIGTERM and
// SIGHUP sent here are sent on to it; its exit status, or the signal that
// ended it, is this process's.
//
// It returns the exit status and true, or false when the stage is to run
// in this process: no such limit is set, this is the child (supervised is
// then set), or the child could not be started.
func superviseMemory(s Stage) (int, bool) {
	if os.Getenv(supervisedEnv) != "" {
		os.Unsetenv(supervisedEnv)
		supervised = true
		return 0, false
	}
	limit, ulimit := memoryLimit()
	if limit == 0 {
		return 0, false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	cmd := &exec.Cmd{
		Path:   "/proc/self/exe",
		Args:   os.Args,
		Env:    append(os.Environ(), supervisedEnv+"=1"),
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: w,
		// A child left without this process (killed outright) ends too.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	// The signals are caught before the child starts: one sent while it
	// starts is sent on once it has.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// Writing on a standard error that went away returns EPIPE, which
	// oomFilter ignores, and doesn't kill this process.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// Pdeathsig follows the thread that started the child: it stays.
	runtime.LockOSThread()
	err = cmd.Start()
	w.Close()
	if err != nil {
		r.Close()
		signal.Reset()
		return 0, false
	}
	f := &oomFilter{w: os.Stderr, atStart: true}
	copied := make(chan struct{})
	go func() {
		io.Copy(f, r)
		f.flush()
		close(copied)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			cmd.Process.Signal(sig)
			continue
		case err = <-done:
		}
		break
	}
	// The child's standard error ends with it.
	<-copied
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", s.Name, err)
		return ExitRuntime, true
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled():
		dieOf(ws.Signal())
		return 128 + int(ws.Signal()), true
	case f.outOfMemory() && ws.ExitStatus() == ExitBadInput:
		what := "raise the limit"
		if hasMemoryFlag(s) {
			what = "lower --memory, or raise the limit"
		}
		fmt.Fprintf(os.Stderr, "%s: out of memory (limit %d MiB, ulimit -%s): %s\n", s.Name, limit>>20, ulimit, what)
		return ExitRuntime, true
	}
	// Not the death the runtime's words announced: they are passed on.
	os.Stderr.Write(f.dump)
	return ws.ExitStatus(), true
}

// memoryLimit returns the hard limit on memory the Go runtime dies at
// (mmap fails), the lower of RLIMIT_AS (ulimit -v) and RLIMIT_DATA (ulimit
// -d), in bytes, and the ulimit flag that sets it; 0 when neither is set.
func memoryLimit() (int64, string) {
	var limit uint64 = unix.RLIM_INFINITY
	var flag string
	for _, l := range []struct {
		resource int
		flag     string
	}{{unix.RLIMIT_DATA, "d"}, {unix.RLIMIT_AS, "v"}} {
		var rl unix.Rlimit
		if unix.Getrlimit(l.resource, &rl) == nil && rl.Cur < limit {
			limit, flag = rl.Cur, l.flag
		}
	}
	if limit == unix.RLIM_INFINITY || limit > 1<<62 {
		return 0, ""
	}
	return int64(limit), flag
}

// dieOf ends the process by sig, as the child ended, where the runtime lets
// it: the signals it dies of quietly when not caught.
func dieOf(sig syscall.Signal) {
	switch sig {
	case syscall.SIGKILL, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM:
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second)
	}
}

// hasMemoryFlag says whether the stage, or one of its commands, has
// --memory.
func hasMemoryFlag(s Stage) bool {
	isMemory := func(f cli.Flag) bool { return slices.Contains(f.Names(), "memory") }
	return slices.ContainsFunc(s.Flags, isMemory) || slices.ContainsFunc(s.Commands, func(c *cli.Command) bool {
		return slices.ContainsFunc(c.Flags, isMemory)
	})
}

// oomLines begin the lines with which the Go runtime dies out of memory:
// "runtime: out of memory: cannot allocate N-byte block (M in use)" before
// "fatal error: out of memory", or "fatal error: runtime: out of memory"
// or "fatal error: runtime: cannot allocate memory" alone; or for want of
// a thread, whose stack it could not map (8 MiB with cgo, counted by
// RLIMIT_DATA and RLIMIT_AS): "runtime/cgo: pthread_create failed:
// Resource temporarily unavailable" before SIGABRT, or without cgo
// "runtime: failed to create new OS thread" before "fatal error:
// newosproc"; or a fault of the collector's (segvLine).
var oomLines = [][]byte{
	[]byte("runtime: out of memory"),
	[]byte("fatal error: out of memory"),
	[]byte("fatal error: runtime: out of memory"),
	[]byte("fatal error: runtime: cannot allocate memory"),
	[]byte("runtime/cgo: pthread_create failed: Resource temporarily unavailable"),
	[]byte("runtime: failed to create new OS thread"),
	[]byte(segvLine),
}

// segvLine begins the dump of a process that died of a fault outside Go
// code. Go 1.26's collector is one when it cannot map its span queue (it
// does not check sysAlloc), which it says by goSpanQueueFault in the dump.
const (
	segvLine         = "SIGSEGV: segmentation violation"
	goSpanQueueFault = "runtime.(*spanQueue).tryDrain("
)

// oomFilter passes the child's standard error to w as it comes, but for a
// line that begins as one of oomLines does: from there on, with the
// goroutine dump after it, it keeps what comes in dump and sets dead. It
// holds back the start of a line only while it could still become one of
// oomLines. outOfMemory says whether the dump is of a death out of memory.
type oomFilter struct {
	w       io.Writer
	atStart bool
	held    []byte
	dead    bool
	dump    []byte
}

func (f *oomFilter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if f.dead {
			f.dump = append(f.dump, p...)
			break
		}
		end := len(p)
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			end = i + 1
		}
		if !f.atStart {
			f.w.Write(p[:end])
			f.atStart = p[end-1] == '\n'
			p = p[end:]
			continue
		}
		line := append(f.held, p[:end]...)
		f.held, p = nil, p[end:]
		switch {
		case slices.ContainsFunc(oomLines, func(m []byte) bool { return bytes.HasPrefix(line, m) }):
			f.dead, f.dump = true, line
		case line[len(line)-1] != '\n' && slices.ContainsFunc(oomLines, func(m []byte) bool { return bytes.HasPrefix(m, line) }):
			f.held = line
		default:
			f.w.Write(line)
			f.atStart = line[len(line)-1] == '\n'
		}
	}
	// Errors writing are not the child's: what it writes is read to the
	// end, so it never blocks on a standard error gone away.
	return n, nil
}

// outOfMemory says whether the dump is of a death out of memory: its
// first line says so, or it is of the collector's fault (segvLine).
func (f *oomFilter) outOfMemory() bool {
	if !f.dead {
		return false
	}
	if bytes.HasPrefix(f.dump, []byte(segvLine)) {
		return bytes.Contains(f.dump, []byte(goSpanQueueFault))
	}
	return true
}

// flush writes what is held back at the end.
func (f *oomFilter) flush() {
	f.w.Write(f.held)
	f.held = nil
}
