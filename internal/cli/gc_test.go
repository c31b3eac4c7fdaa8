package cli

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/stream"
)

// fromDefaults sets GOGC and GOMEMLIMIT to gogc and gomemlimit ("" is not
// set), the collector to GC percent 100 and no memory limit; the test's
// own settings are put back when it ends.
func fromDefaults(t *testing.T, gogc, gomemlimit string) {
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
		pace.Lock()
		pace.started, pace.holding = false, false
		pace.Unlock()
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

// paceGC: startGCPercent until a collection ends, then 100; a holding
// stage's percent from then on, whenever it says it holds.
func TestPaceGC(t *testing.T) {
	fromDefaults(t, "", "")
	paceGC()
	if p := gcPercent(); p != startGCPercent {
		t.Fatalf("GC percent %d at the start, want %d", p, startGCPercent)
	}
	collectUntil(t, 100, "once a collection has ended")
	holdGC()
	if p := gcPercent(); p != holdingGCPercent {
		t.Fatalf("GC percent %d in a holding stage, want %d", p, holdingGCPercent)
	}
}

func TestPaceGCHolding(t *testing.T) {
	fromDefaults(t, "", "")
	paceGC()
	holdGC()
	if p := gcPercent(); p != startGCPercent {
		t.Fatalf("GC percent %d at the start of a holding stage, want %d", p, startGCPercent)
	}
	collectUntil(t, holdingGCPercent, "in a holding stage once a collection has ended")
}

// The user's GOGC and GOMEMLIMIT are theirs: the collector is left as
// they set it.
func TestGCLeavesTheUsers(t *testing.T) {
	fromDefaults(t, "100", "8GiB")
	paceGC()
	holdGC()
	holdLimit(1 << 20)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p, l := gcPercent(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Errorf("GC percent %d, memory limit %d with GOGC and GOMEMLIMIT set; want both untouched", p, l)
	}
}

// shingle --pairs holds the band records as pairs does: the holding pace,
// and a soft limit of pairs' --memory (its default) and shingleReserve,
// room for shingle's own memory and garbage above what pairs holds.
func TestShinglePairsHoldLimit(t *testing.T) {
	fromDefaults(t, "", "")
	docs := filepath.Join(t.TempDir(), "docs.tsv")
	if err := os.WriteFile(docs, []byte("a\tthe quick brown fox\nb\tthe quick brown fox jumps\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runStage(t, Shingle(), "--unit", "word", "-k", "2", "--sketch", "oph", "--band", "0.5", "--pairs", docs)
	if code != 0 || !strings.Contains(out, "#neardup stage=pairs ") {
		t.Fatalf("shingle --pairs: %d %q %q", code, out, stderr)
	}
	if l, want := debug.SetMemoryLimit(-1), stream.DefaultMemory()+shingleReserve; l != want {
		t.Errorf("memory limit %d, want pairs' default --memory and shingle's reserve, %d", l, want)
	}
	pace.Lock()
	holding := pace.holding
	pace.Unlock()
	if !holding {
		t.Error("shingle --pairs does not pace the collector as a holding stage")
	}
}
