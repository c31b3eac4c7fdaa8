package stream

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/neardup/neardup/internal/status"
)

// The default --memory of every stage that holds state (docfreq, pairs,
// verify, cluster, keep, bandindex): an eighth of the machine's memory
// (MemTotal of /proc/meminfo, or the cgroup's limit when it is lower), at
// least MemoryFloor and at most MemoryCap. A pipeline of five stages that
// hold state then takes at most five eighths of the machine, and on a
// machine of 24 GiB each stays at 2 GiB of state, under 4 GiB however it
// counts its runtime and buffers. The man pages state this rule
// (DefaultMemoryRule), never a number of the machine they were made on.
const (
	MemoryFloor = 64 << 20
	MemoryCap   = 2 << 30
	// MemoryFallback is the default when the machine's memory can't be
	// read (no /proc: another system).
	MemoryFallback = 512 << 20
	// DefaultMemoryRule is how the man pages state the default.
	DefaultMemoryRule = "an eighth of the machine's memory (or of its cgroup limit), at least 64M, at most 2G"
)

// BufferFloor is the least a buffer sized by --memory holds, whatever
// --memory says: below it a stage would spill a sorted run (or read a part
// of its input) every few records, and at the smallest sizes hold none.
// So every --memory works, and one below BufferFloor is exceeded by up to
// that much a buffer; the man pages say so (MemoryFloorRule).
const BufferFloor = 64 << 10

// MemoryFloorRule is how the man pages state BufferFloor.
const MemoryFloorRule = "any size works, a buffer holding at least 64K"

// Memory returns the --memory n asks for: n, or when it is 0 (or less)
// DefaultMemory, the one default of every stage's --memory.
func Memory(n int64) int64 {
	if n > 0 {
		return n
	}
	return DefaultMemory()
}

// DefaultMemory returns the default --memory of this machine, in bytes.
func DefaultMemory() int64 { return defaultMemory(os.ReadFile) }

// defaultMemory is DefaultMemory with the files read by read (tests give
// fake ones).
func defaultMemory(read func(string) ([]byte, error)) int64 {
	return MemoryFrom(machineSizes(read))
}

// CheckUpFront refuses a --memory of n bytes more than the machine has
// (MachineMemory) for a stage that allocates it whole at the start: the
// allocation would fail, or the stage be killed once the buffer fills.
// Unknown memory (no /proc) refuses nothing. Its error is a usage error.
func CheckUpFront(n int64) error {
	if total := MachineMemory(); total > 0 && n > total {
		return status.Usagef("--memory %d: more than this machine's memory (%d bytes), and the buffer is allocated whole", n, total)
	}
	return nil
}

// MachineMemory returns the memory of this machine in bytes: MemTotal of
// /proc/meminfo, or the cgroup's limit when it is lower; 0 when neither can
// be read (another system).
func MachineMemory() int64 { return lesserSize(machineSizes(os.ReadFile)) }

// machineSizes returns MemTotal and the cgroup's memory limit, each 0 when
// unknown, with the files read by read.
func machineSizes(read func(string) ([]byte, error)) (total, limit int64) {
	if data, err := read("/proc/meminfo"); err == nil {
		total = memTotal(data)
	}
	// cgroup v2, then v1.
	for _, name := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if data, err := read(name); err == nil {
			if v := cgroupLimit(data); v > 0 {
				limit = v
				break
			}
		}
	}
	return total, limit
}

// lesserSize returns limit when it is set (above 0) and lower than total,
// else total.
func lesserSize(total, limit int64) int64 {
	if limit > 0 && (total <= 0 || limit < total) {
		return limit
	}
	return total
}

// MemoryFrom is the rule: an eighth of total, or of limit when it is set
// (above 0) and lower, between MemoryFloor and MemoryCap; MemoryFallback
// when neither is known.
func MemoryFrom(total, limit int64) int64 {
	m := lesserSize(total, limit)
	if m <= 0 {
		return MemoryFallback
	}
	return min(max(m/8, MemoryFloor), MemoryCap)
}

// memTotal returns MemTotal of a /proc/meminfo, in bytes (0 when missing).
func memTotal(data []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || v <= 0 {
			return 0
		}
		if len(f) > 1 && strings.EqualFold(f[1], "kB") {
			v <<= 10
		}
		return v
	}
	return 0
}

// cgroupLimit returns a cgroup memory limit in bytes, 0 when there is none
// ("max" in v2; v1 writes a huge number, taken as none above 2^60).
func cgroupLimit(data []byte) int64 {
	s := strings.TrimSpace(string(data))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0
	}
	return v
}

// FormatSize writes a byte count as --memory takes it (2G, 512M, 1K, or
// bytes), for the messages that name it.
func FormatSize(b int64) string {
	switch {
	case b > 0 && b%(1<<30) == 0:
		return fmt.Sprintf("%dG", b>>30)
	case b > 0 && b%(1<<20) == 0:
		return fmt.Sprintf("%dM", b>>20)
	case b > 0 && b%(1<<10) == 0:
		return fmt.Sprintf("%dK", b>>10)
	}
	return fmt.Sprint(b)
}
