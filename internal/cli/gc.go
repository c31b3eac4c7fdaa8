package cli

import (
	"os"
	"runtime/debug"
)

// holdingGCPercent is the GC percent of a stage that holds most of what it
// reads (pairs, verify): the heap grows by half of what is live before a
// collection, not by all of it, so that the peak stays near what is held
// (a quarter less at 250k documents for a few percent more time).
const holdingGCPercent = 50

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
