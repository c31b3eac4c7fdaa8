package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// holdingGCPercent is the GC percent of a stage that holds most of what it
// reads (pairs, verify): the heap grows by half of what is live before a
// collection, not by all of it, so that the peak stays near what is held
// (a quarter less at 250k documents for a few percent more time).
const holdingGCPercent = 50

// holdingHeap is the live heap from which a holding stage's collector
// runs at holdingGCPercent (holdGC). Below it the default pace holds at
// most that much more than is live. Lowered from the start, the least
// heap goal (4 MiB at the default pace) halved as well, and a collection
// ran before the first record was read: 1 to 2.5 ms of pairs' 3.3 on an
// empty input, 6 ms of make peers' pipeline.
const holdingHeap = 64 << 20

// startGCPercent is every stage's GC percent until its first collection
// ends: that collection comes at a heap of 8 MiB, not 4, where a stage's
// buffers of a megabyte each (its chunks, its output) and the packages'
// own (1.5 MiB) had it run at once in a small run, at a cost of 1.6 ms
// (shingle --band on one line: 7.6 -> 6.0 ms). After it the pace is the
// default one, or a holding stage's.
const startGCPercent = 200

// holdFrom is the live heap from which the pace is holdingGCPercent (0:
// never; holdGC sets it).
var holdFrom atomic.Uint64

// holdLimit sets the process's soft memory limit to limit, what a stage
// holds (a stage's HoldLimit), as restic's tweakGoGC does, and only where
// the user has not: when GOMEMLIMIT is not set and the limit in force is
// higher. A stage that holds what it reads within a bound has the
// collector keep the heap near it (with its default pace the heap grows to
// twice what is live, some 3.1 GiB under a pairs --memory of 2G at two
// million crawl documents).
func holdLimit(limit int64) {
	if limit > 0 && os.Getenv("GOMEMLIMIT") == "" && limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

// holdGC has a stage that holds most of what it reads run at
// holdingGCPercent once a collection leaves holdingHeap live (paceGC).
func holdGC() { holdFrom.Store(holdingHeap) }

// paceGC sets the collector's pace for the run of a stage, unless GOGC is
// set: startGCPercent until the first collection ends, then the default
// 100, or holdingGCPercent once a collection leaves holdFrom bytes live.
// A value made unreachable at once is looked at after each collection
// (runtime.AddCleanup), and a new one made: one chain of them, so that
// one setting follows another. Main calls it first.
func paceGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(startGCPercent)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	started := false
	var watch func(int)
	watch = func(int) {
		metrics.Read(live)
		if h := holdFrom.Load(); h != 0 && live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() >= h {
			debug.SetGCPercent(holdingGCPercent)
			return
		}
		if !started {
			debug.SetGCPercent(100)
			started = true
		}
		runtime.AddCleanup(new([16]byte), watch, 0)
	}
	runtime.AddCleanup(new([16]byte), watch, 0)
}
