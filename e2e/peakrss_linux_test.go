package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPeakRSS runs a program in the script's directory and environment, as
// exec does, and checks the largest resident memory that it or any of its
// descendants reached (wait4's ru_maxrss covers the children a process
// waited for, so every stage of a pipeline under sh -c counts):
//
//	peakrss 64 sh -c 'stage | stage'     each process stayed under 64 MiB
//	! peakrss 64 verify …                 the program went over 64 MiB
//
// The program must succeed either way.
func cmdPeakRSS(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: peakrss MiB program [args...]")
	}
	limit, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		ts.Fatalf("peakrss: limit %q is not a number of MiB", args[0])
	}
	cmd := exec.Command(lookScriptPath(ts, args[1]), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "ROOT", "GOMEMLIMIT", "GOGC", "SORTMEM", "JOBS", "LC_ALL"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		ts.Logf("[stdout]\n%s[stderr]\n%s", stdout.Bytes(), stderr.Bytes())
		ts.Fatalf("peakrss: %s: %v", args[1], err)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024 // KiB on Linux
	ts.Logf("peak resident memory of the largest process: %d MiB (limit %d MiB)", peak, limit)
	switch {
	case peak > limit && !neg:
		ts.Fatalf("peakrss: a process reached %d MiB, over the limit of %d MiB", peak, limit)
	case peak <= limit && neg:
		ts.Fatalf("peakrss: every process stayed within %d MiB (%d MiB); want one over", limit, peak)
	}
}

// lookScriptPath finds a program on the script's $PATH (where the stages
// are), not the test's.
func lookScriptPath(ts *testscript.TestScript, name string) string {
	if filepath.Base(name) != name {
		return name
	}
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	ts.Fatalf("peakrss: %s is not on the script's $PATH", name)
	return ""
}
