package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// peakRSS is the peakrss program of the scripts: it runs a command and
// reports the largest resident memory that it or any of its descendants
// reached (wait4's ru_maxrss covers the children a process waited for, so
// every stage of a pipeline under sh -c counts):
//
//	exec peakrss 64 sh -c 'stage | stage'    exit 0: every process stayed within 64 MiB
//	exits 3 peakrss 64 verify …              exit 3: one went over
//
// A command that fails gives its own status. It runs as a program of its
// own, not inside the test binary: on Linux a child starts sharing its
// parent's memory (vfork) and inherits its peak, which would be the test
// binary's, not the command's.
func peakRSS() int {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss MiB program [args...]")
		return 2
	}
	limit, err := strconv.ParseInt(os.Args[1], 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "peakrss: limit %q is not a number of MiB\n", os.Args[1])
		return 2
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(os.Stderr, "peakrss: %v\n", err)
		return 1
	}
	kib, ok := maxRSSKiB(cmd.ProcessState)
	if !ok {
		fmt.Fprintln(os.Stderr, "peakrss: resident memory is measured on Linux only")
		return 1
	}
	peak := kib >> 10
	fmt.Fprintf(os.Stderr, "peakrss: the largest process reached %d MiB of resident memory (limit %d MiB)\n", peak, limit)
	if peak > limit {
		return 3
	}
	return 0
}
