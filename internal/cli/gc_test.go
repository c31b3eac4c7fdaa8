package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// fromDefaults sets GOGC and GOMEMLIMIT to gogc and gomemlimit ("" is not
// set), the collector to GC percent 100 and no memory limit; the test's
// own settings are put back when it ends.
func fromDefaults(t *testing.T, gogc, gomemlimit string) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	oldHold := holdFrom.Load()
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
		holdFrom.Store(oldHold)
	})
	t.Setenv("GOGC", gogc)
	t.Setenv("GOMEMLIMIT", gomemlimit)
}

func TestHoldLimit(t *testing.T) {
	fromDefaults(t, "", "")
	holdLimit(1 << 30)
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("memory limit %d, want %d", l, 1<<30)
	}
	holdLimit(2 << 30)
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("memory limit raised to %d, want %d kept", l, 1<<30)
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

// collectUntil runs collections until the GC percent is want, and fails
// the test if it isn't within ten seconds.
func collectUntil(t *testing.T, want int64, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); gcPercent() != want; {
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d %s, want %d", gcPercent(), what, want)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// paceGC: startGCPercent until a collection ends, then 100 while the live
// heap is below holdFrom, then holdingGCPercent. (One test: paceGC starts
// a chain of watches for the life of the process.)
func TestPaceGC(t *testing.T) {
	fromDefaults(t, "", "")
	runtime.GC()
	holdGC()
	if holdFrom.Load() != holdingHeap {
		t.Fatalf("holdGC: hold from %d, want %d", holdFrom.Load(), holdingHeap)
	}
	holdFrom.Store(liveHeap() + 32<<20)
	paceGC()
	if p := gcPercent(); p != startGCPercent {
		t.Fatalf("GC percent %d at the start, want %d", p, startGCPercent)
	}
	collectUntil(t, 100, "once a collection has ended")
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercent(); p != 100 {
		t.Fatalf("GC percent %d with a small heap, want 100", p)
	}
	held := make([]byte, 48<<20)
	collectUntil(t, holdingGCPercent, "with 48 MiB more live")
	runtime.KeepAlive(held)
}

// The user's GOGC and GOMEMLIMIT are theirs: the collector is left as
// they set it.
func TestGCLeavesTheUsers(t *testing.T) {
	fromDefaults(t, "100", "8GiB")
	holdFrom.Store(1)
	paceGC()
	holdLimit(1 << 20)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Errorf("GC percent %d, memory limit %d with GOGC and GOMEMLIMIT set; want both untouched", p, l)
	}
}
