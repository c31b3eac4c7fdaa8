package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// tweakedGC runs tweakGC(percent, limit) with GOGC and GOMEMLIMIT set to
// gogc and gomemlimit ("" is not set), from GC percent 100 and no memory
// limit, and returns what the collector is left with; the test's own
// settings are put back when it ends.
func tweakedGC(t *testing.T, gogc, gomemlimit string, percent int, limit int64) (int, int64) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	t.Setenv("GOGC", gogc)
	t.Setenv("GOMEMLIMIT", gomemlimit)
	tweakGC(percent, limit)
	return debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
}

func TestTweakGC(t *testing.T) {
	if p, l := tweakedGC(t, "", "", 50, 1<<30); p != 50 || l != 1<<30 {
		t.Errorf("GC percent %d, memory limit %d; want 50 and %d", p, l, 1<<30)
	}
	tweakGC(0, 2<<30)
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("memory limit raised to %d, want %d kept", l, 1<<30)
	}
	holdLimit(1 << 29)
	if l := debug.SetMemoryLimit(-1); l != 1<<29 {
		t.Errorf("memory limit %d, want %d", l, 1<<29)
	}
}

// The user's GOGC and GOMEMLIMIT are theirs: tweakGC leaves both.
func TestTweakGCLeavesTheUsers(t *testing.T) {
	if p, l := tweakedGC(t, "100", "8GiB", 50, 1<<20); p != 100 || l != math.MaxInt64 {
		t.Errorf("GC percent %d, memory limit %d with GOGC and GOMEMLIMIT set; want both untouched", p, l)
	}
}

// gcPercent reads the GC percent in force.
func gcPercent() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// liveHeap reads the live heap left by the last collection.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// holdGCFrom leaves the GC percent at 100 while the live heap is below
// its bound, and lowers it once a collection leaves that much live.
func TestHoldGCFrom(t *testing.T) {
	tweakedGC(t, "", "", 0, 0)
	runtime.GC()
	holdGCFrom(liveHeap() + 32<<20)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercent(); p != 100 {
		t.Fatalf("GC percent %d with a small heap, want 100", p)
	}
	held := make([]byte, 48<<20)
	for deadline := time.Now().Add(10 * time.Second); gcPercent() != holdingGCPercent; {
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d with %d more bytes live, want %d", gcPercent(), len(held), holdingGCPercent)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(held)
}

// With GOGC set, holdGCFrom leaves the percent as it is.
func TestHoldGCFromLeavesTheUsers(t *testing.T) {
	tweakedGC(t, "100", "", 0, 0)
	holdGCFrom(0)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercent(); p != 100 {
		t.Fatalf("GC percent %d with GOGC set, want 100", p)
	}
}
