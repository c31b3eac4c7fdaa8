//go:build unix

package estimate

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the job a process group of its own, which a cancelled
// run signals whole (SIGTERM): the shell and every stage it started, so
// that none goes on reading a sample removed under it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}
