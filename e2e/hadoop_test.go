package e2e

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHadoop simulates a Hadoop Streaming job with the real binaries:
//
//	hadoop [-m M] [-r R] [-seed S] [-key-fields N] -map 'CMD | CMD …' [-reduce 'CMD | …'] INPUT OUTPUT
//
// The input is split into M shards of whole lines; the map pipeline runs on
// each. Every output line is split into key (its first N fields, the whole
// line if it has fewer) and value; a line with no value reaches the reducer
// with a trailing TAB, as Hadoop writes it. Lines are hash-partitioned by key
// into R partitions; within a key the values are shuffled (Hadoop promises
// no order of values), then the partition is stable-sorted by key bytes and
// the reduce pipeline runs on it. The outputs are concatenated in partition
// order. Without -reduce the job is map-only and the map outputs are
// concatenated in shard order. Counters that a stage writes to standard
// error ("reporter:counter:GROUP,NAME,AMOUNT") are summed and printed.
func cmdHadoop(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("hadoop does not take !")
	}
	fs := flag.NewFlagSet("hadoop", flag.ContinueOnError)
	m := fs.Int("m", 1, "map shards")
	r := fs.Int("r", 1, "reduce partitions")
	seed := fs.Uint64("seed", 1, "seed of the shuffle of values within a key")
	keyFields := fs.Int("key-fields", 1, "fields of the key")
	mapper := fs.String("map", "", "map pipeline")
	reducer := fs.String("reduce", "", "reduce pipeline")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 || *mapper == "" || *m < 1 || *r < 1 {
		ts.Fatalf("usage: hadoop [-m M] [-r R] [-seed S] [-key-fields N] -map CMDS [-reduce CMDS] INPUT OUTPUT")
	}
	input, err := os.ReadFile(ts.MkAbs(fs.Arg(0)))
	ts.Check(err)
	counters := map[string]int64{}
	var mapOut [][]byte
	for _, shard := range splitLines(input, *m) {
		mapOut = append(mapOut, runPipeline(ts, *mapper, shard, counters))
	}
	var out bytes.Buffer
	if *reducer == "" {
		for _, o := range mapOut {
			out.Write(o)
		}
	} else {
		parts := make([][]kv, *r)
		for _, o := range mapOut {
			for _, line := range lines(o) {
				k, v := splitKey(line, *keyFields)
				h := fnv.New32a()
				h.Write(k)
				p := h.Sum32() % uint32(*r)
				parts[p] = append(parts[p], kv{k, v})
			}
		}
		rng := rand.New(rand.NewPCG(*seed, uint64(*r)))
		for _, part := range parts {
			out.Write(runPipeline(ts, *reducer, shuffleSort(part, rng), counters))
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(fs.Arg(1)), out.Bytes(), 0o644))
	names := make([]string, 0, len(counters))
	for n := range counters {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(ts.Stdout(), "counter %s %d\n", n, counters[n])
	}
}

type kv struct{ key, value []byte }

// splitLines cuts data into n shards of whole lines, as input splits do.
func splitLines(data []byte, n int) [][]byte {
	ls := lines(data)
	shards := make([][]byte, n)
	for i := range n {
		var b bytes.Buffer
		for _, l := range ls[i*len(ls)/n : (i+1)*len(ls)/n] {
			b.Write(l)
			b.WriteByte('\n')
		}
		shards[i] = b.Bytes()
	}
	return shards
}

// lines returns the lines of data without their line ends.
func lines(data []byte) [][]byte {
	var ls [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			ls = append(ls, data)
			break
		}
		ls = append(ls, data[:i])
		data = data[i+1:]
	}
	return ls
}

// splitKey splits a line after its first n fields.
func splitKey(line []byte, n int) (key, value []byte) {
	i := 0
	for f := 0; f < n; f++ {
		j := bytes.IndexByte(line[i:], '\t')
		if j < 0 {
			return line, nil
		}
		i += j + 1
	}
	return line[:i-1], line[i:]
}

// shuffleSort shuffles the values within each key, then sorts by key bytes
// (stably, so the shuffled order of values stays), and formats the lines
// the reducer reads.
func shuffleSort(part []kv, rng *rand.Rand) []byte {
	rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
	sort.SliceStable(part, func(i, j int) bool { return bytes.Compare(part[i].key, part[j].key) < 0 })
	var b bytes.Buffer
	for _, p := range part {
		b.Write(p.key)
		b.WriteByte('\t')
		b.Write(p.value)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// runPipeline runs "CMD ARGS | CMD ARGS …" on input, with the script's
// environment and working directory, and returns the last command's output.
func runPipeline(ts *testscript.TestScript, pipeline string, input []byte, counters map[string]int64) []byte {
	data := input
	for _, c := range strings.Split(pipeline, "|") {
		fields := strings.Fields(c)
		if len(fields) == 0 {
			ts.Fatalf("hadoop: empty command in %q", pipeline)
		}
		path, err := lookPath(ts, fields[0])
		ts.Check(err)
		cmd := exec.Command(path, fields[1:]...)
		cmd.Dir = ts.Getenv("WORK")
		cmd.Env = scriptEnv(ts)
		cmd.Stdin = bytes.NewReader(data)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			ts.Fatalf("hadoop: %s: %v\n%s", c, err, stderr.Bytes())
		}
		readCounters(&stderr, counters)
		data = stdout.Bytes()
	}
	return data
}

func readCounters(stderr io.Reader, counters map[string]int64) {
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "reporter:counter:")
		if !ok {
			continue
		}
		f := strings.Split(rest, ",")
		if len(f) != 3 {
			continue
		}
		var n int64
		fmt.Sscan(f[2], &n)
		counters[f[0]+"/"+f[1]] += n
	}
}

func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

func lookPath(ts *testscript.TestScript, name string) (string, error) {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("hadoop: %s not found on the script's PATH", name)
}

// cmdSameCanon compares two record files in canonical form: the set of
// distinct header lines, and the records sorted, each without the empty
// last field that Hadoop Streaming adds to a record with no value. With !
// it asserts they differ.
//
//	samecanon A B
func cmdSameCanon(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samecanon A B")
	}
	a, b := canonical(ts, args[0]), canonical(ts, args[1])
	same := a == b
	switch {
	case same && neg:
		ts.Fatalf("%s and %s are the same in canonical form", args[0], args[1])
	case !same && !neg:
		ts.Fatalf("%s and %s differ in canonical form:\n%s", args[0], args[1], firstDifference(a, b))
	}
}

func canonical(ts *testscript.TestScript, name string) string {
	data, err := os.ReadFile(ts.MkAbs(name))
	ts.Check(err)
	headers := map[string]bool{}
	var records []string
	for _, l := range lines(data) {
		s := string(l)
		if strings.HasPrefix(s, "#neardup") {
			headers[strings.Join(strings.Fields(s), " ")] = true
			continue
		}
		records = append(records, strings.TrimSuffix(s, "\t"))
	}
	var hs []string
	for h := range headers {
		hs = append(hs, h)
	}
	slices.Sort(hs)
	slices.Sort(records)
	return strings.Join(hs, "\n") + "\n--\n" + strings.Join(records, "\n") + "\n"
}

func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d:\n  %q\n  %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d lines against %d", len(la), len(lb))
}

// firstValue is a deliberately order-dependent reducer: for each key it
// keeps only the first value it reads. The sharded test must catch it.
func firstValue() int {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	var last string
	first := true
	for sc.Scan() {
		k, _, _ := strings.Cut(sc.Text(), "\t")
		if first || k != last {
			fmt.Fprintln(w, sc.Text())
		}
		last, first = k, false
	}
	return 0
}
