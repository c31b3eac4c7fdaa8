package cli

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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

// tweakGC sets the process's collector for a stage, as restic's tweakGoGC
// does, and only where the user has not: the GC percent to percent (0:
// left as it is) when GOGC is not set, and the soft memory limit to limit
// (0: left as it is) when GOMEMLIMIT is not set and the limit in force is
// higher. A stage that holds what it reads within a bound has the
// collector keep the heap near it (with its default pace the heap grows to
// twice what is live, some 3.1 GiB under a pairs --memory of 2G at two
// million crawl documents).
func tweakGC(percent int, limit int64) {
	if percent != 0 && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
	if limit > 0 && os.Getenv("GOMEMLIMIT") == "" && limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

// holdLimit sets the soft memory limit to what a stage holds (a stage's
// HoldLimit).
func holdLimit(limit int64) { tweakGC(0, limit) }

// holdGC sets the GC percent of a holding stage to holdingGCPercent once
// the live heap reaches holdingHeap.
func holdGC() { holdGCFrom(holdingHeap) }

// holdGCFrom sets the GC percent to holdingGCPercent (tweakGC) at the end
// of the first collection that leaves heap bytes or more live: a value
// made unreachable at once is looked at after each collection, and a new
// one made until then.
func holdGCFrom(heap uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var watch func(int)
	watch = func(int) {
		if metrics.Read(live); live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() >= heap {
			tweakGC(holdingGCPercent, 0)
			return
		}
		runtime.AddCleanup(new([16]byte), watch, 0)
	}
	runtime.AddCleanup(new([16]byte), watch, 0)
}
