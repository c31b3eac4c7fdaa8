package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup/internal/index"
)

// cpuTime returns the CPU time (user and system) the process has used, all
// its threads (the garbage collector's too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resident says how much of the index is in memory: the pages of its file
// mapped in (/proc/self/smaps) and its directory.
func resident(ix *index.Index) string {
	dir := float64(ix.MemoryBytes()) / 1e6
	path, err := filepath.Abs(ix.Path)
	if err == nil {
		path, err = filepath.EvalSymlinks(path)
	}
	f, err2 := os.Open("/proc/self/smaps")
	if err != nil || err2 != nil {
		return fmt.Sprintf("%.1f MB of directory; the file's resident pages are unknown here", dir)
	}
	defer f.Close()
	var rss int64 // kB
	mine := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			mine = len(fields) >= 6 && fields[5] == path
		case mine && len(fields) == 3 && fields[0] == "Rss:":
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			rss += kb
		}
	}
	file := float64(rss) * 1024 / 1e6
	return fmt.Sprintf("%.1f MB of the file's %.1f MB mapped in, and %.1f MB of directory: %.1f MB", file, float64(ix.Size)/1e6, dir, file+dir)
}
