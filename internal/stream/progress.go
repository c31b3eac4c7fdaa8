package stream

import (
	"fmt"
	"io"
	"time"
)

// ProgressInterval is how often progress is reported.
const ProgressInterval = time.Second

// startProgress reports on w, every ProgressInterval, how much of src has
// been read, how many records taken (by records) and the rate. The returned
// function stops it and prints a final line. note, if not nil, adds to each
// line.
func startProgress(stage string, w io.Writer, src Source, records func() int64, note func() string) (stop func()) {
	start := time.Now()
	quit := make(chan struct{})
	finished := make(chan struct{})
	report := func(final bool) {
		done, total := src.Progress()
		secs := time.Since(start).Seconds()
		if secs <= 0 {
			secs = 1e-9
		}
		msg := fmt.Sprintf("%s: %s read, %d records, %.1f MB/s, %.0f records/s",
			stage, humanBytes(done), records(), float64(done)/1e6/secs, float64(records())/secs)
		if total > 0 {
			msg += fmt.Sprintf(", %.1f%% of %s", 100*float64(done)/float64(total), humanBytes(total))
		}
		if note != nil {
			msg += ", " + note()
		}
		if final {
			msg += fmt.Sprintf(", %.1fs", secs)
		}
		fmt.Fprintln(w, msg)
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(ProgressInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				report(false)
			case <-quit:
				report(true)
				return
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
