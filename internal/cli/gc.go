package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// holdingGCPercent is the GC percent of a stage that holds most of what it
// reads (pairs, verify): the heap grows by half of what is live before a
// collection, not by all of it, so that the peak stays near what is held
// (a quarter less at 250k documents for a few percent more time).
const holdingGCPercent = 50

// startGCPercent is every stage's GC percent until its first collection
// ends: that collection comes at a heap of 8 MiB, not 4, where a stage's
// buffers of a megabyte each (its chunks, its output) and the packages'
// own (1.5 MiB) had it run at once in a small run, at a cost of 1.6 ms
// (shingle --band on one line: 7.6 -> 6.0 ms). After it the pace is the
// default one, or a holding stage's.
const startGCPercent = 200

// pace is what the GC percent follows (setPace): whether the first
// collection has ended, and whether the stage holds what it reads.
var pace struct {
	sync.Mutex
	started, holding bool
}

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
// holdingGCPercent from its first collection on (paceGC).
func holdGC() { setPace(func() { pace.holding = true }) }

// paceGC sets the collector's pace for the run of a stage, unless GOGC is
// set: startGCPercent until the first collection ends, then the default
// 100, or a holding stage's holdingGCPercent. A value made unreachable at
// once says when that collection has ended (runtime.AddCleanup). Main
// calls it first.
func paceGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(startGCPercent)
	runtime.AddCleanup(new([16]byte), func(int) { setPace(func() { pace.started = true }) }, 0)
}

// setPace applies change to pace, and sets the GC percent it calls for
// once the first collection has ended.
func setPace(change func()) {
	pace.Lock()
	defer pace.Unlock()
	change()
	if !pace.started {
		return
	}
	if pace.holding {
		debug.SetGCPercent(holdingGCPercent)
	} else {
		debug.SetGCPercent(100)
	}
}
