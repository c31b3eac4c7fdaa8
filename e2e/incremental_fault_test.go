//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/neardup/neardup/internal/synth"
)

// The batch job (examples/incremental.sh) is run with nothing on its $PATH
// but a shim for each command it may run: the shim counts the commands and,
// at the Nth, kills the job's process group (SIGKILL) before or after
// running the real command. A command the job runs without a shim fails the
// test. (basename, cut, grep and tail are those the job ran before it was
// made a transaction, so that the tests run against that one too.)
var faultCommands = []string{
	"shingle", "band", "pairs", "verify", "keep", "bandindex",
	"awk", "cat", "cp", "date", "find", "flock", "ln", "mkdir", "mktemp",
	"mv", "readlink", "rm", "sed", "sha256sum", "sort", "sync", "uname",
	"basename", "cut", "grep", "tail",
}

// faultShim is a command's shim: %[1]s the real command, %[2]s sleep, %[3]s
// flock, by which the count is right when commands run at once (in a
// pipeline).
const faultShim = `#!/bin/sh
exec 8> "$FAULT_COUNT.lock"
%[3]q 8
read -r n < "$FAULT_COUNT"
n=$((n + 1))
echo "$n" > "$FAULT_COUNT"
exec 8>&-
if [ "$n" = "${FAULT_AT:-}" ]; then
	[ "$FAULT_WHEN" = after ] || kill -s KILL 0
	%[1]q "$@"
	kill -s KILL 0
fi
if [ "$n" = "${FAULT_HOLD:-}" ]; then
	while [ ! -e "$FAULT_RELEASE" ]; do %[2]q 0.02; done
fi
exec %[1]q "$@"
`

// faultJob is the batch job with its shims and its batches: d1/crawl.tsv
// and d2/crawl.tsv (one file name, two batches) and d3/more.tsv.zst, with
// near-duplicates within and across them, and all.tsv, the three in one.
type faultJob struct {
	recipe string
	shims  string
	in     string // the batches, and the job's working directory
}

var batches = []string{"d1/crawl.tsv", "d2/crawl.tsv", "d3/more.tsv.zst"}

func newFaultJob(t *testing.T) *faultJob {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	j := &faultJob{recipe: filepath.Join(root, "examples", "incremental.sh"), shims: t.TempDir(), in: t.TempDir()}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("needs sleep")
	}
	flock, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("needs flock")
	}
	for _, c := range faultCommands {
		real, err := exec.LookPath(c)
		if err != nil {
			t.Skipf("needs %s", c)
		}
		if c == "sync" {
			// A kill loses nothing the kernel holds: the syncs are kill
			// points, but not run (they take seconds on a busy disk).
			if real, err = exec.LookPath("true"); err != nil {
				t.Skip("needs true")
			}
		}
		real, err = filepath.Abs(real)
		if err != nil {
			t.Fatal(err)
		}
		shim := fmt.Sprintf(faultShim, real, sleep, flock)
		if err := os.WriteFile(filepath.Join(j.shims, c), []byte(shim), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var corpus, errs bytes.Buffer
	if synth.Main([]string{"-n", "60", "-seed", "11", "-max-words", "80", "-plant", "0.4"}, &corpus, &errs) != 0 {
		t.Fatalf("gencorpus: %s", errs.String())
	}
	lines := strings.SplitAfter(corpus.String(), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) != 60 {
		t.Fatalf("gencorpus wrote %d documents, want 60", len(lines))
	}
	// Whole copies too: of a batch-1 document in batch 2 and in batch 3,
	// and of a batch-3 document in batch 3.
	dup := func(l string) string { id, text, _ := strings.Cut(l, "\t"); return id + "~dup\t" + text }
	parts := [][]string{
		lines[:20],
		append(append([]string{}, lines[20:30]...), append([]string{dup(lines[2])}, lines[30:40]...)...),
		append(append([]string{dup(lines[5])}, lines[40:60]...), dup(lines[45])),
	}
	var all strings.Builder
	for i, b := range batches {
		text := strings.Join(parts[i], "")
		all.WriteString(text)
		data := []byte(text)
		if strings.HasSuffix(b, ".zst") {
			enc, err := zstd.NewWriter(nil)
			if err != nil {
				t.Fatal(err)
			}
			data = enc.EncodeAll(data, nil)
			enc.Close()
		}
		j.write(t, b, data)
	}
	j.write(t, "all.tsv", []byte(all.String()))
	return j
}

func (j *faultJob) write(t *testing.T, name string, data []byte) {
	t.Helper()
	p := filepath.Join(j.in, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs the job in dir (its STATE dir/state, its TMPDIR dir/tmp) on the
// batches given, with env added (FAULT_AT, FAULT_WHEN, FAULT_HOLD,
// FAULT_RELEASE). It returns the job, started, and what waits for it.
func (j *faultJob) start(t *testing.T, dir string, env []string, args ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	t.Helper()
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(dir, "count")
	if err := os.WriteFile(count, []byte("0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The flags (--wait) before STATE, the batches after.
	argv := []string{j.recipe, "--unit", "word", "-k", "3", "-t", "0.7"}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		argv, args = append(argv, args[0]), args[1:]
	}
	argv = append(append(argv, filepath.Join(dir, "state")), args...)
	cmd = exec.Command("/bin/sh", argv...)
	cmd.Dir = j.in
	cmd.Env = append([]string{"PATH=" + j.shims, "TMPDIR=" + tmp, "FAULT_COUNT=" + count, "LC_ALL=C"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, stderr
}

// run runs the job to its end: its standard output and error, its exit
// status (-1 when killed), and the number of commands it ran.
func (j *faultJob) run(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, status, commands int) {
	t.Helper()
	cmd, out, errs := j.start(t, dir, env, args...)
	err := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		status = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "count"))
	if err != nil {
		t.Fatal(err)
	}
	commands, err = strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), status, commands
}

// mustRun runs the job and fails the test unless it exits 0.
func (j *faultJob) mustRun(t *testing.T, dir string, args ...string) (stdout, stderr string, commands int) {
	t.Helper()
	stdout, stderr, status, commands := j.run(t, dir, nil, args...)
	if status != 0 {
		t.Fatalf("incremental.sh %s: exit status %d\n%s%s", strings.Join(args, " "), status, stdout, stderr)
	}
	return stdout, stderr, commands
}

// snapshot is every path under a STATE, but the lock file, with what it
// holds: a file's bytes, a symlink's target.
func snapshot(t *testing.T, state string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(state, p)
		switch {
		case rel == "LOCK":
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			m[rel] = "symlink to " + target
			return err
		case d.IsDir():
			m[rel] = "directory"
		default:
			data, err := os.ReadFile(p)
			m[rel] = "file " + string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameState fails the test, naming the paths, unless got is want.
func sameState(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var diff []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			diff = append(diff, p+": missing")
		} else if g != w {
			diff = append(diff, p+": other bytes")
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			diff = append(diff, p+": not in the uninterrupted run's state")
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		t.Errorf("%s: the state is not the uninterrupted run's:\n\t%s", what, strings.Join(diff, "\n\t"))
	}
}

// reference is an uninterrupted run of the three batches: its state, its
// standard output and the number of commands it ran.
func (j *faultJob) reference(t *testing.T) (state map[string]string, stdout string, commands int) {
	t.Helper()
	dir := t.TempDir()
	stdout, _, commands = j.mustRun(t, dir, batches...)
	return snapshot(t, filepath.Join(dir, "state")), stdout, commands
}

// TestIncrementalFaults kills the batch job at every command it runs,
// before and after the command, and runs it again: the state (the kept
// documents and reports, the index, the stored batches, every byte) is
// the uninterrupted run's.
func TestIncrementalFaults(t *testing.T) {
	j := newFaultJob(t)
	want, _, commands := j.reference(t)
	t.Logf("%d commands, each a kill point before and after", commands)
	if commands < 40 {
		t.Fatalf("the job ran %d commands for three batches: are the shims on its path?", commands)
	}
	type point struct {
		at   int
		when string
	}
	points := make(chan point)
	go func() {
		for at := 1; at <= commands; at++ {
			// -short: every third command, before and after, a third
			// of the time (some 40 s of CPU for all of them).
			if testing.Short() && at%3 != 0 {
				continue
			}
			points <- point{at, "before"}
			points <- point{at, "after"}
		}
		close(points)
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range points {
				dir, err := os.MkdirTemp(t.TempDir(), "kill")
				if err != nil {
					t.Error(err)
					return
				}
				what := fmt.Sprintf("killed %s command %d of %d", p.when, p.at, commands)
				env := []string{"FAULT_AT=" + strconv.Itoa(p.at), "FAULT_WHEN=" + p.when}
				out, errs, status, _ := j.run(t, dir, env, batches...)
				if status != -1 {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s: exit status %d, not killed\n%s%s", what, status, out, errs))
					mu.Unlock()
					continue
				}
				out, errs, status, _ = j.run(t, dir, nil, batches...)
				if status != 0 {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s, then run again: exit status %d\n%s%s", what, status, out, errs))
					mu.Unlock()
					continue
				}
				sameState(t, what+", then run again", snapshot(t, filepath.Join(dir, "state")), want)
				os.RemoveAll(dir)
			}
		}()
	}
	wg.Wait()
	for _, f := range failed {
		t.Error(f)
	}
}

// TestIncrementalBatches checks what the job keeps and says: the batches'
// kept documents together are the one-shot job's (examples/dedup.sh), two
// batches of one file name both have theirs, a compressed batch is counted
// in documents, and a batch already done, by its content, is skipped.
func TestIncrementalBatches(t *testing.T) {
	j := newFaultJob(t)
	want, stdout, _ := j.reference(t)

	// The one-shot job over the three batches in one file.
	oneShot := exec.Command("/bin/sh", filepath.Join(filepath.Dir(j.recipe), "dedup.sh"), "--unit", "word", "-k", "3", "-t", "0.7", "all.tsv")
	oneShot.Dir = j.in
	oneShot.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	kept, err := oneShot.Output()
	if err != nil {
		t.Fatalf("dedup.sh: %v", err)
	}
	var batchesKept []byte
	names := []string{"kept/000000-crawl.tsv", "kept/000001-crawl.tsv", "kept/000002-more.tsv.zst"}
	for i, n := range names {
		f, ok := want[filepath.Join(strings.TrimPrefix(want["current"], "symlink to "), n)]
		if !ok {
			t.Fatalf("no %s in the state", n)
		}
		data := []byte(strings.TrimPrefix(f, "file "))
		if strings.HasSuffix(n, ".zst") {
			dec, err := zstd.NewReader(nil)
			if err != nil {
				t.Fatal(err)
			}
			data, err = dec.DecodeAll(data, nil)
			dec.Close()
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
		}
		batchesKept = append(batchesKept, data...)
		// Kept K of D documents: D the batch's documents (the third has
		// 22), K the lines of the kept file (decompressed).
		docs := []int{20, 21, 22}[i]
		line := fmt.Sprintf(`(?m)^%s: batch 00000%d: .*; kept %d of %d documents in .*/state/%s$`, regexp.QuoteMeta(batches[i]), i, bytes.Count(data, []byte("\n")), docs, regexp.QuoteMeta(n))
		if !regexp.MustCompile(line).MatchString(stdout) {
			t.Errorf("the job's output has no line matching %s:\n%s", line, stdout)
		}
	}
	if !bytes.Equal(batchesKept, kept) {
		t.Errorf("the batches' kept documents together are not the one-shot job's:\n%s\nwant\n%s", batchesKept, kept)
	}
	if bytes.Count(kept, []byte("\n")) >= 63 {
		t.Errorf("the one-shot job kept all 63 documents: the batches have no near-duplicates")
	}

	// The same batch again, and the first batch's content under another
	// name: skipped, the state unchanged.
	dir := t.TempDir()
	j.mustRun(t, dir, batches...)
	j.write(t, "d4/copy.tsv", mustRead(t, filepath.Join(j.in, "d1/crawl.tsv")))
	out, errs, _ := j.mustRun(t, dir, "d2/crawl.tsv", "d4/copy.tsv")
	for _, m := range []string{
		`d2/crawl.tsv: skipped: its content \(sha256 [0-9a-f]{64}\) is that of batch 000001 \(crawl.tsv\), already done`,
		`d4/copy.tsv: skipped: its content \(sha256 [0-9a-f]{64}\) is that of batch 000000 \(crawl.tsv\), already done`,
	} {
		if !regexp.MustCompile(m).MatchString(errs) {
			t.Errorf("run again on batches done: no message matching %s:\n%s", m, errs)
		}
	}
	if out != "" {
		t.Errorf("run again on batches done: it wrote %q", out)
	}
	sameState(t, "run again on batches done", snapshot(t, filepath.Join(dir, "state")), want)
}

// TestIncrementalLock runs the job twice at once on one STATE: the second
// is refused, naming the first, or with --wait waits for it; either way the
// state ends as the two runs one after the other leave it.
func TestIncrementalLock(t *testing.T) {
	j := newFaultJob(t)
	want, _, _ := j.reference(t)
	for _, wait := range []bool{false, true} {
		dir := t.TempDir()
		release := filepath.Join(t.TempDir(), "release")
		// The first run is held at its 12th command, the lock taken.
		first, _, firstErr := j.start(t, dir, []string{"FAULT_HOLD=12", "FAULT_RELEASE=" + release}, batches[:2]...)
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			data, _ := os.ReadFile(filepath.Join(dir, "count"))
			if n, _ := strconv.Atoi(strings.TrimSpace(string(data))); n >= 12 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the first run never reached its 12th command")
			}
		}
		second := filepath.Join(t.TempDir(), "second")
		if !wait {
			_, errs, status, _ := j.run(t, sharedState(t, dir, second), nil, batches[2])
			holder := fmt.Sprintf(`state/LOCK: another run is changing this state \(pid %d on .+ since [0-9T:Z-]+\); run again when it has finished, or give --wait`, first.Process.Pid)
			if status != 1 || !regexp.MustCompile(holder).MatchString(errs) {
				t.Errorf("a second run at once: exit status %d, want 1 and a message matching %s:\n%s", status, holder, errs)
			}
			os.WriteFile(release, nil, 0o644)
			if err := first.Wait(); err != nil {
				t.Fatalf("the first run: %v\n%s", err, firstErr)
			}
			j.mustRun(t, dir, batches[2])
		} else {
			secondCmd, _, secondErr := j.start(t, sharedState(t, dir, second), nil, "--wait", batches[2])
			time.Sleep(300 * time.Millisecond)
			os.WriteFile(release, nil, 0o644)
			if err := first.Wait(); err != nil {
				t.Fatalf("the first run: %v\n%s", err, firstErr)
			}
			if err := secondCmd.Wait(); err != nil {
				t.Fatalf("the second run, --wait: %v\n%s", err, secondErr)
			}
		}
		sameState(t, fmt.Sprintf("two runs at once (--wait %v)", wait), snapshot(t, filepath.Join(dir, "state")), want)
	}
}

// sharedState makes dir2 a run directory (its own count and TMPDIR) whose
// state is dir's.
func sharedState(t *testing.T, dir, dir2 string) string {
	t.Helper()
	if err := os.MkdirAll(dir2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "state"), filepath.Join(dir2, "state")); err != nil {
		t.Fatal(err)
	}
	return dir2
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
