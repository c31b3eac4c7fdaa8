package stream

import (
	"io/fs"
	"testing"
)

func TestDefaultMemory(t *testing.T) {
	const gib = int64(1) << 30
	meminfo := func(kb string) string {
		return "MemTotal:       " + kb + " kB\nMemFree:          123456 kB\n"
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"24 GiB machine: capped at 2G", map[string]string{"/proc/meminfo": meminfo("25165824")}, 2 * gib},
		{"8 GiB machine: an eighth", map[string]string{"/proc/meminfo": meminfo("8388608")}, gib},
		{"cgroup v2 limit lower", map[string]string{"/proc/meminfo": meminfo("25165824"), "/sys/fs/cgroup/memory.max": "4294967296\n"}, gib / 2},
		{"cgroup v2 max: no limit", map[string]string{"/proc/meminfo": meminfo("8388608"), "/sys/fs/cgroup/memory.max": "max\n"}, gib},
		{"cgroup v1 limit", map[string]string{"/proc/meminfo": meminfo("25165824"), "/sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n"}, gib / 4},
		{"cgroup v1 unlimited", map[string]string{"/proc/meminfo": meminfo("8388608"), "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, gib},
		{"cgroup limit higher than the machine", map[string]string{"/proc/meminfo": meminfo("8388608"), "/sys/fs/cgroup/memory.max": "68719476736"}, gib},
		{"small machine: the floor", map[string]string{"/proc/meminfo": meminfo("262144")}, MemoryFloor},
		{"only a cgroup", map[string]string{"/sys/fs/cgroup/memory.max": "1073741824"}, 128 << 20},
		{"nothing readable", map[string]string{}, MemoryFallback},
		{"meminfo without MemTotal", map[string]string{"/proc/meminfo": "MemFree: 1 kB\n"}, MemoryFallback},
		{"meminfo garbage", map[string]string{"/proc/meminfo": "MemTotal: lots kB\n"}, MemoryFallback},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func(name string) ([]byte, error) {
				if s, ok := tc.files[name]; ok {
					return []byte(s), nil
				}
				return nil, fs.ErrNotExist
			}
			if got := defaultMemory(read); got != tc.want {
				t.Errorf("default memory = %d, want %d", got, tc.want)
			}
		})
	}
	if m := DefaultMemory(); m < MemoryFloor || m > MemoryCap {
		t.Errorf("DefaultMemory() = %d on this machine, outside [%d, %d]", m, MemoryFloor, MemoryCap)
	}
}

func TestFormatSize(t *testing.T) {
	for b, want := range map[int64]string{2 << 30: "2G", 512 << 20: "512M", 1 << 10: "1K", 1536: "1536", 3 << 19: "1536K", 0: "0"} {
		if got := FormatSize(b); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", b, got, want)
		}
	}
}
