package stream

import (
	"bytes"
	"regexp"
	"testing"
)

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0:             "0 B",
		1023:          "1023 B",
		1024:          "1.0 KiB",
		1536:          "1.5 KiB",
		5 << 20:       "5.0 MiB",
		3 << 30:       "3.00 GiB",
		(1 << 30) - 1: "1024.0 MiB",
	} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

type fixedProgress struct{ done, total int64 }

func (f fixedProgress) Next() (*Chunk, error)    { return nil, nil }
func (f fixedProgress) Progress() (int64, int64) { return f.done, f.total }
func (f fixedProgress) Close() error             { return nil }

func TestStartProgressFinalLine(t *testing.T) {
	for _, tt := range []struct {
		src  fixedProgress
		want string
	}{
		{fixedProgress{3 << 20, 6 << 20}, `^sketch: 3\.0 MiB read, 42 records, [0-9.]+ MB/s, [0-9]+ records/s, 50\.0% of 6\.0 MiB, [0-9.]+s\n$`},
		{fixedProgress{100, -1}, `^sketch: 100 B read, 42 records, [0-9.]+ MB/s, [0-9]+ records/s, [0-9.]+s\n$`},
	} {
		var out bytes.Buffer
		stop := startProgress("sketch", &out, tt.src, func() int64 { return 42 }, nil)
		stop()
		if !regexp.MustCompile(tt.want).MatchString(out.String()) {
			t.Errorf("progress report %q, want it to match %s", out.String(), tt.want)
		}
	}
}

func TestProgressLineTimeLeft(t *testing.T) {
	for _, tt := range []struct {
		done, total int64
		secs        float64
		final       bool
		want        string
	}{
		{1e6, 4e6, 10, false, "st: 976.6 KiB read, 5 records, 0.1 MB/s, 0 records/s, 25.0% of 3.8 MiB, 30s left"},
		{1e6, 4e6, 100, false, "st: 976.6 KiB read, 5 records, 0.0 MB/s, 0 records/s, 25.0% of 3.8 MiB, 5m00s left"},
		{1e6, 3e6, 3700, false, "st: 976.6 KiB read, 5 records, 0.0 MB/s, 0 records/s, 33.3% of 2.9 MiB, 2h03m left"},
		{1e6, 4e6, 10, true, "st: 976.6 KiB read, 5 records, 0.1 MB/s, 0 records/s, 25.0% of 3.8 MiB"},
		{0, 4e6, 10, false, "st: 0 B read, 5 records, 0.0 MB/s, 0 records/s, 0.0% of 3.8 MiB"},
		{4e6, 4e6, 10, false, "st: 3.8 MiB read, 5 records, 0.4 MB/s, 0 records/s, 100.0% of 3.8 MiB"},
		{1e6, -1, 10, false, "st: 976.6 KiB read, 5 records, 0.1 MB/s, 0 records/s"},
	} {
		if got := progressLine("st", tt.done, tt.total, 5, tt.secs, tt.final); got != tt.want {
			t.Errorf("progressLine(%d, %d, %g s, final %v) = %q, want %q", tt.done, tt.total, tt.secs, tt.final, got, tt.want)
		}
	}
}
