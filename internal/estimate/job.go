package estimate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup/internal/status"
)

// run is what the job did on one sample.
type run struct {
	*sample
	Dropped, Pairs int64
	// Capped is the number of buckets pairs capped at --max-bucket, and
	// Largest the size of the largest (0 when none was).
	Capped, Largest int64
	Clusters        Histogram
	// Stages holds each stage's times and peak memory, in the order the
	// job ran them.
	Stages []stageTimes
	// Wall and CPU are the whole job's seconds.
	Wall, CPU float64
}

// stageTimes is a line that the job writes to STAGE_TIMES.
type stageTimes struct {
	Name            string
	Wall, CPU, Peak float64 // seconds, seconds, KiB
}

var (
	usageHint   = regexp.MustCompile(`(?m)\n?^Run '[^']*--help' for usage\.$`)
	keepPairs   = regexp.MustCompile(`(?m)^keep: (\d+) documents read, \d+ in (\d+) verified pairs$`)
	keepDropped = regexp.MustCompile(`(?m)^keep: \d+ kept, (\d+) dropped$`)
	pairsCapped = regexp.MustCompile(`(?m)^pairs: (\d+) bucket\(s\) held more than --max-bucket \d+ ids \(the largest (\d+)\)`)
)

// runJob runs the job on a sample, with STAGE_TIMES, its report and its
// scratch in dir.
func runJob(ctx context.Context, opt *Options, s *sample, dir string) (*run, error) {
	times := s.Path + ".times"
	report := s.Path + ".report"
	args := append(opt.jobArgs(), "-r", report, "-T", dir, "--format", "tsv", s.Path)
	cmd := exec.CommandContext(ctx, opt.Dedup, args...)
	cmd.Env = append(os.Environ(), "STAGE_TIMES="+times, "TMPDIR="+dir)
	ownGroup(cmd)
	// Stopped, a stage has a second to remove its files and end (the
	// command line gives the whole of estimate two).
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := &run{sample: s, Wall: time.Since(start).Seconds()}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		// The job's own message, without its stage's pointer to its
		// help (estimate's follows).
		msg := usageHint.ReplaceAllString(strings.TrimSpace(stderr.String()), "")
		job := strings.Join(append([]string{filepath.Base(opt.Dedup)}, opt.jobArgs()...), " ")
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 2 {
			return nil, status.Usagef("the job (%s) refused its flags: %s", job, msg)
		}
		return nil, fmt.Errorf("the job (%s) failed on %s: %v: %s", job, s.Path, err, msg)
	}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	out := stderr.Bytes()
	m := keepPairs.FindSubmatch(out)
	d := keepDropped.FindSubmatch(out)
	if m == nil || d == nil {
		return nil, fmt.Errorf("%s on %s: keep did not say the documents it read and dropped: %s", opt.Dedup, s.Path, strings.TrimSpace(string(out)))
	}
	read := atoi(m[1])
	if read != s.Docs {
		return nil, fmt.Errorf("%s on %s: keep read %d documents of the %d the sample holds", opt.Dedup, s.Path, read, s.Docs)
	}
	r.Pairs, r.Dropped = atoi(m[2]), atoi(d[1])
	if c := pairsCapped.FindSubmatch(out); c != nil {
		r.Capped, r.Largest = atoi(c[1]), atoi(c[2])
	}
	if r.Stages, err = readTimes(times); err != nil {
		return nil, err
	}
	if r.Clusters, err = readClusters(report, s); err != nil {
		return nil, err
	}
	if n := r.Clusters.dropped(); n != r.Dropped {
		return nil, fmt.Errorf("%s: %d documents dropped, where keep said %d", report, n, r.Dropped)
	}
	return r, nil
}

func atoi(b []byte) int64 {
	n, _ := strconv.ParseInt(string(b), 10, 64)
	return n
}

// readTimes reads the STAGE_TIMES lines: stage TAB wall TAB user TAB
// system TAB peak KiB.
func readTimes(name string) ([]stageTimes, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var ts []stageTimes
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		var v [4]float64
		ok := len(f) == 5
		for k := 0; ok && k < 4; k++ {
			v[k], err = strconv.ParseFloat(f[k+1], 64)
			ok = err == nil
		}
		if !ok {
			return nil, fmt.Errorf("%s:%d: want stage TAB wall TAB user TAB system TAB peak KiB, got %q", name, i+1, line)
		}
		ts = append(ts, stageTimes{Name: f[0], Wall: v[0], CPU: v[1] + v[2], Peak: v[3]})
	}
	return ts, nil
}

// readClusters reads the clusters of a sample from the job's report: each
// dropped document names the kept one of its cluster (the second column).
func readClusters(name string, s *sample) (Histogram, error) {
	f, err := os.Open(name)
	if err != nil {
		return Histogram{}, err
	}
	defer f.Close()
	members := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if bytes.HasPrefix(sc.Bytes(), []byte("#")) {
			continue
		}
		fields := strings.SplitN(sc.Text(), "\t", 3)
		if len(fields) < 3 {
			return Histogram{}, fmt.Errorf("%s:%d: want dropped TAB kept TAB via ..., got %d field(s)", name, line, len(fields))
		}
		members[fields[1]]++
	}
	if err := sc.Err(); err != nil {
		return Histogram{}, fmt.Errorf("%s: %v", name, err)
	}
	h := Histogram{F: s.F, Docs: s.Docs, Sizes: map[int]int64{}}
	for _, n := range members {
		h.Sizes[n+1]++
	}
	return h, nil
}

// dropped returns the documents dropped: all but one of each cluster.
func (h Histogram) dropped() int64 {
	var n int64
	for s, c := range h.Sizes {
		n += int64(s-1) * c
	}
	return n
}
