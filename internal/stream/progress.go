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
		line := progressLine(stage, done, total, records(), time.Since(start).Seconds(), final)
		if note != nil {
			line += ", " + note()
		}
		if final {
			line += fmt.Sprintf(", %.1fs", time.Since(start).Seconds())
		}
		fmt.Fprintln(w, line)
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

// progressLine is a progress report's line: what was read, the records,
// the rates and, when the input's size is known, the share read and (but on
// the final line) the time left at the rate so far.
func progressLine(stage string, done, total, records int64, secs float64, final bool) string {
	if secs <= 0 {
		secs = 1e-9
	}
	msg := fmt.Sprintf("%s: %s read, %d records, %.1f MB/s, %.0f records/s",
		stage, humanBytes(done), records, float64(done)/1e6/secs, float64(records)/secs)
	if total > 0 {
		msg += fmt.Sprintf(", %.1f%% of %s", 100*float64(done)/float64(total), humanBytes(total))
		if !final && done > 0 && done < total {
			msg += ", " + humanDuration(secs*float64(total-done)/float64(done)) + " left"
		}
	}
	return msg
}

// humanDuration writes secs as 42s, 3m05s or 2h07m.
func humanDuration(secs float64) string {
	s := int64(secs + 0.5)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
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
