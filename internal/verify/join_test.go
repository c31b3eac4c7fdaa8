package verify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/status"
	"github.com/neardup/neardup/internal/stream"
	"github.com/neardup/neardup/internal/testutil"
)

// sortByKey sorts record lines bytewise by their first field, stably, as
// LC_ALL=C sort -t$'\t' -k1,1 -s would.
func sortByKey(in string) string {
	lines := strings.SplitAfter(in, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	key := func(l string) string {
		k, _, _ := strings.Cut(strings.TrimSuffix(l, "\n"), "\t")
		return k
	}
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return strings.Join(lines, "")
}

// split returns the header lines in order and the records sorted.
func split(out string) (headers, records []string) {
	for _, l := range strings.SplitAfter(out, "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "#neardup"):
			headers = append(headers, l)
		default:
			records = append(records, l)
		}
	}
	slices.Sort(records)
	return headers, records
}

// joinRun runs verify --attach on pairs, sorts its output by key and runs
// verify --sorted on it, as the pipeline a user types does.
func joinRun(t *testing.T, opt Options, pairs string) (attached, out string) {
	t.Helper()
	a := opt
	a.Attach, a.Threshold, a.Containment = true, 0, false
	attached, stderr, err := testutil.Run(t, Run, a, testutil.WriteFile(t, "p.tsv", pairs))
	if err != nil {
		t.Fatalf("verify --attach: %v (stderr %q)", err, stderr)
	}
	s := opt
	s.Sorted = true
	out, stderr, err = testutil.Run(t, Run, s, testutil.WriteFile(t, "a.tsv", sortByKey(attached)))
	if err != nil {
		t.Fatalf("verify --sorted: %v (stderr %q)", err, stderr)
	}
	return attached, out
}

// randomCorpus returns shingle records (sorted by id, with headers, some
// sets empty, some with counts) and candidate pairs sorted as pairs writes
// them, with pairs' headers.
func randomCorpus(rng *rand.Rand, docs, npairs int) (shingles, pairs string) {
	const head = "#neardup stage=shingle unit=word k=5 hash=tok64 seed=0 counts=no\n"
	var s strings.Builder
	s.WriteString(head)
	ids := make([]string, docs)
	for d := range docs {
		ids[d] = fmt.Sprintf("d%04d", d)
	}
	slices.Sort(ids)
	for d, id := range ids {
		var set []uint64
		if d%17 != 5 {
			for v := range uint64(40 + rng.IntN(200)) {
				if rng.IntN(3) > 0 {
					set = append(set, v*0x9e3779b97f4a7c15%(1<<40))
				}
			}
		}
		slices.Sort(set)
		field := hexSet(set...)
		if d%13 == 1 && len(set) > 0 {
			field = strings.Replace(field, " ", ":3 ", 1)
		}
		fmt.Fprintf(&s, "%s\t%s\n", id, field)
	}
	seen := map[[2]string]bool{}
	var ps []string
	for len(ps) < npairs {
		a, b := ids[rng.IntN(docs)], ids[rng.IntN(docs)]
		if a >= b || seen[[2]string{a, b}] {
			continue
		}
		seen[[2]string{a, b}] = true
		ps = append(ps, a+"\t"+b+"\n")
	}
	slices.Sort(ps)
	return s.String(), head + "#neardup stage=pairs max-bucket=0\n" + strings.Join(ps, "")
}

// TestJoinMatchesMemory: attach, sort by key, sorted gives the records and
// header lines verify gives in memory, for shingles with and without
// containment, for -j 1 and 3, with pieces small enough that a key's lines
// span several.
func TestJoinMatchesMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	shingles, pairs := randomCorpus(rng, 300, 3000)
	sfile := testutil.WriteFile(t, "s.tsv", shingles)
	saved := pieceBytes
	defer func() { pieceBytes = saved }()
	for _, pb := range []int{saved, 300} {
		pieceBytes = pb
		for _, opt := range []Options{
			{Shingles: sfile, Threshold: 0.3, Common: stream.Common{Jobs: 1}},
			{Shingles: sfile, Threshold: 0.5, Containment: true, Common: stream.Common{Jobs: 3}},
			{Shingles: sfile, Threshold: 0, Common: stream.Common{Jobs: 2}},
		} {
			want, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "p.tsv", pairs))
			if err != nil {
				t.Fatal(err)
			}
			attached, got := joinRun(t, opt, pairs)
			wh, wr := split(want)
			gh, gr := split(got)
			if !slices.Equal(wh, gh) {
				t.Errorf("piece %d, %+v: headers\n%s\nwant\n%s", pb, opt, gh, wh)
			}
			if !slices.Equal(wr, gr) {
				t.Errorf("piece %d, %+v: %d records, want %d (the same after sorting)", pb, opt, len(gr), len(wr))
			}
			if len(wr) < 50 && opt.Threshold > 0 {
				t.Errorf("only %d pairs kept: the test should keep many", len(wr))
			}
			if !strings.Contains(attached, "#neardup stage=attach values=shingles\n") {
				t.Errorf("attached pairs without their header:\n%.300s", attached)
			}
		}
	}
}

// TestJoinDeterministic: each step writes the same bytes for any -j.
func TestJoinDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2))
	shingles, pairs := randomCorpus(rng, 200, 2000)
	sfile := testutil.WriteFile(t, "s.tsv", shingles)
	saved := pieceBytes
	defer func() { pieceBytes = saved }()
	pieceBytes = 500
	var first [2]string
	for _, jobs := range []int{1, 4} {
		a, out := joinRun(t, Options{Shingles: sfile, Threshold: 0.2, Common: stream.Common{Jobs: jobs}}, pairs)
		if jobs == 1 {
			first = [2]string{a, out}
		} else if a != first[0] || out != first[1] {
			t.Errorf("-j %d output differs from -j 1", jobs)
		}
	}
}

// TestJoinSketches: the estimates from every kind of sketch, containment
// from MOD_m samples.
func TestJoinSketches(t *testing.T) {
	for _, c := range []struct {
		header string
		opt    Options
	}{
		{"method=minhash n=4 seed=0 family=mixmuladd64", Options{}},
		{"method=bottomk s=4 seed=0", Options{}},
		{"method=modm m=2 seed=0", Options{Containment: true}},
	} {
		sketches := "#neardup stage=sketch " + c.header + "\n" +
			"w\t0\t\n" +
			"x\t9\t" + hexSet(1, 2, 3, 4) + "\n" +
			"y\t9\t" + hexSet(1, 2, 5, 4) + "\n" +
			"z\t7\t" + hexSet(1, 3, 5, 6) + "\n"
		c.opt.Sketches = testutil.WriteFile(t, "k.tsv", sketches)
		pairs := "w\tx\nw\tz\nx\ty\nx\tz\ny\tz\n"
		want, _, err := testutil.Run(t, Run, c.opt, testutil.WriteFile(t, "p.tsv", pairs))
		if err != nil {
			t.Fatal(err)
		}
		attached, got := joinRun(t, c.opt, pairs)
		if !strings.Contains(attached, "z\tx\t9\t"+hexSet(1, 2, 3, 4)+"\n") || !strings.Contains(attached, "values=sketches") {
			t.Errorf("%s: attached pairs\n%s", c.header, attached)
		}
		wh, wr := split(want)
		gh, gr := split(got)
		if !slices.Equal(wh, gh) || !slices.Equal(wr, gr) {
			t.Errorf("%s: got\n%s\nwant\n%s", c.header, got, want)
		}
	}
}

// TestAttachedRecord: the intermediate record as documented, keyed by the
// second id, A's shingle field as its record has it.
func TestAttachedRecord(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", "a\t"+hexSet(1, 2)+":2\nb\t"+hexSet(3)+"\ne\t\n")
	out, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Attach: true}, testutil.WriteFile(t, "p.tsv", "a\tb\na\te\nb\ta\ne\tb\n"))
	want := "#neardup stage=attach values=shingles\n" +
		"b\ta\t2\t" + hexSet(1, 2) + ":2\n" +
		"e\ta\t2\t" + hexSet(1, 2) + ":2\n" +
		"a\tb\t1\t" + hexSet(3) + "\n" +
		"b\te\t0\t\n"
	if err != nil || out != want {
		t.Errorf("got\n%q, %v\nwant\n%q", out, err, want)
	}
	// Scored from there, a pair written either way round comes out as
	// idA < idB.
	out, _, err = testutil.Run(t, Run, Options{Shingles: shingles, Sorted: true, Threshold: 0, Common: stream.Common{NoHeader: true}}, testutil.WriteFile(t, "a.tsv", sortByKey(want)))
	wantScored := "a\tb\t0.000000\na\tb\t0.000000\nb\te\t0.000000\na\te\t0.000000\n"
	if err != nil || out != wantScored {
		t.Errorf("scored\n%q, %v\nwant\n%q", out, err, wantScored)
	}
}

// TestJoinBadInput: input out of order, a repeated or unknown id, a
// malformed record: each names its file and line; an attached pair where it
// does not belong is refused.
func TestJoinBadInput(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	attached := "#neardup stage=attach values=shingles\nb\ta\t4\t" + hexSet(1, 2, 3, 4) + "\n"
	for _, c := range []struct {
		name   string
		opt    Options
		side   string // replaces handShingles when set
		input  string
		want   string
		status status.Class
	}{
		{"pairs out of order", Options{Attach: true}, "", "b\tc\na\tb\n",
			"p.tsv:2: id a comes after b (line 1): verify --attach needs pairs sorted by their first id (LC_ALL=C sort -t$'\\t' -k1,1)", status.BadInput},
		{"file out of order", Options{Attach: true}, "b\t\na\t\n", "b\tc\n",
			"s.tsv:2: id a comes after b (line 1): the file must be sorted by id", status.BadInput},
		{"file out of order before a needed id", Options{Attach: true}, "a\t\nc\t\nb\t\n", "b\tc\n",
			"p.tsv:1: id b is not in " + "SIDE" + " (or the file is not sorted by id)", status.BadInput},
		{"file out of order, skipping", Options{Attach: true, Common: stream.Common{SkipBad: true}}, "a\t\nc\t\nb\t\n", "b\tc\n",
			"s.tsv:3: id b comes after c (line 2)", status.BadInput},
		{"repeated id", Options{Attach: true}, "a\t\nb\t\nb\t\nc\t\n", "c\ta\n",
			"s.tsv:3: id b appears more than once (also at line 2)", status.BadInput},
		{"unknown id", Options{Attach: true}, "", "a\tb\nd\ta\n", "p.tsv:2: id d is not in " + shingles, status.BadInput},
		{"bad side record", Options{Attach: true}, "a\t12\n", "a\tb\n", "s.tsv:1: hash 1: want 16 hex digits", status.BadInput},
		{"self pair", Options{Attach: true}, "", "a\ta\n", "p.tsv:1: a pair of a with itself", status.BadInput},
		{"attached twice", Options{Attach: true}, "", attached, "p.tsv:1: the input holds attached pairs", status.BadInput},
		{"attached to verify", Options{}, "", attached, "p.tsv:1: the input holds attached pairs (#neardup stage=attach values=shingles), written by verify --attach: only verify --sorted reads them", status.BadInput},
		{"pairs to --sorted", Options{Sorted: true}, "", "a\tb\n", "p.tsv: no #neardup stage=attach header before the first record: verify --sorted reads attached pairs", status.BadInput},
		{"attached out of order", Options{Sorted: true}, "", attached + "a\tc\t0\t\n",
			"p.tsv:3: id a comes after b (line 2): verify --sorted needs attached pairs sorted by their first field", status.BadInput},
		{"unknown second id", Options{Sorted: true}, "", "#neardup stage=attach values=shingles\nzz\ta\t0\t\n", "p.tsv:2: id zz is not in", status.BadInput},
		{"wrong size", Options{Sorted: true}, "", "#neardup stage=attach values=shingles\nb\ta\t3\t" + hexSet(1, 2) + "\n", "p.tsv:2: size 3, but 2 shingle hashes follow", status.BadInput},
		{"short attached pair", Options{Sorted: true}, "", "#neardup stage=attach values=shingles\nb\ta\n", "p.tsv:2: want idB TAB idA TAB size TAB values (an attached pair), found 2 fields", status.BadInput},
		{"mixed", Options{Sorted: true}, "", attached + "#neardup stage=attach values=sketches\n", "p.tsv:3: attached pairs with header", status.BadInput},
	} {
		opt := c.opt
		opt.Shingles = shingles
		if c.side != "" {
			opt.Shingles = testutil.WriteFile(t, "s.tsv", c.side)
		}
		_, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "p.tsv", c.input))
		c.want = strings.ReplaceAll(c.want, "SIDE", opt.Shingles)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			continue
		}
		if cl := status.Of(err); cl != c.status {
			t.Errorf("%s: error %v is of class %d, want %d", c.name, err, cl, c.status)
		}
	}
	// Sketches attached, shingles given.
	sk := testutil.WriteFile(t, "k.tsv", "a\t1\t"+hexSet(1)+"\n")
	_, _, err := testutil.Run(t, Run, Options{Shingles: sk, Sorted: true}, testutil.WriteFile(t, "p.tsv", "#neardup stage=attach values=sketches\n"))
	if err == nil || !strings.Contains(err.Error(), "p.tsv:1: the attached pairs carry sketches, but verify was given --shingles") {
		t.Errorf("values mismatch: %v", err)
	}
}

// TestJoinSkipBad: under --skip-bad an unknown id or a bad line is skipped
// and counted; the order of the input is not negotiable.
func TestJoinSkipBad(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	out, stderr, err := testutil.Run(t, Run, Options{Shingles: shingles, Attach: true, Common: stream.Common{SkipBad: true}}, testutil.WriteFile(t, "p.tsv", "a\tb\nab\tc\nb\nc\ta\n"))
	if err != nil || strings.Count(out, "\n") != 3 || !strings.Contains(stderr, "skipped 2 bad line(s)") || !strings.Contains(stderr, "p.tsv:2: id ab is not in") {
		t.Errorf("got %q, %q, %v", out, stderr, err)
	}
	_, _, err = testutil.Run(t, Run, Options{Shingles: shingles, Attach: true, Common: stream.Common{SkipBad: true}}, testutil.WriteFile(t, "p.tsv", "b\tc\na\tb\n"))
	if err == nil || !strings.Contains(err.Error(), "p.tsv:2: id a comes after b") {
		t.Errorf("out of order under --skip-bad: %v", err)
	}
}

// TestJoinEmpty: empty input gives empty output at each step; input of
// headers only gives the headers verify gives.
func TestJoinEmpty(t *testing.T) {
	shingles := testutil.WriteFile(t, "s.tsv", handShingles)
	for _, opt := range []Options{{Attach: true}, {Sorted: true}} {
		opt.Shingles = shingles
		out, _, err := testutil.Run(t, Run, opt, testutil.WriteFile(t, "p.tsv", ""))
		if err != nil || out != "" {
			t.Errorf("%+v: empty input gave %q, %v", opt, out, err)
		}
	}
	const head = "#neardup stage=pairs max-bucket=0\n"
	want, _, err := testutil.Run(t, Run, Options{Shingles: shingles, Threshold: 0.8}, testutil.WriteFile(t, "p.tsv", head))
	if err != nil {
		t.Fatal(err)
	}
	_, got := joinRun(t, Options{Shingles: shingles, Threshold: 0.8}, head)
	if got != want || want == "" {
		t.Errorf("headers only: got %q, want %q", got, want)
	}
}

// BenchmarkJoin times verify in memory and the two steps of the join on
// the same pairs (the sort between them is sort(1)'s): bytes of pair input
// per second.
func BenchmarkJoin(b *testing.B) {
	rng := rand.New(rand.NewPCG(6, 3))
	shingles, pairs := randomCorpus(rng, 2000, 40000)
	dir := b.TempDir()
	sfile, pfile := filepath.Join(dir, "s.tsv"), filepath.Join(dir, "p.tsv")
	os.WriteFile(sfile, []byte(shingles), 0o644)
	os.WriteFile(pfile, []byte(pairs), 0o644)
	var attached bytes.Buffer
	if err := Run(context.Background(), Options{Shingles: sfile, Attach: true}, []string{pfile}, &attached, io.Discard); err != nil {
		b.Fatal(err)
	}
	afile := filepath.Join(dir, "a.tsv")
	os.WriteFile(afile, []byte(sortByKey(attached.String())), 0o644)
	for _, c := range []struct {
		name  string
		opt   Options
		input string
	}{
		{"memory", Options{Shingles: sfile, Threshold: 0.5}, pfile},
		{"attach", Options{Shingles: sfile, Attach: true}, pfile},
		{"sorted", Options{Shingles: sfile, Sorted: true, Threshold: 0.5}, afile},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(pairs)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Run(context.Background(), c.opt, []string{c.input}, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAttachPieceOutput: a document with many pairs and a large set is
// attached in pieces whose output stays near the piece size, not in one
// output as large as all its pairs.
func TestAttachPieceOutput(t *testing.T) {
	set := make([]uint64, 2000)
	for i := range set {
		set[i] = uint64(i)
	}
	shingles := testutil.WriteFile(t, "s.tsv", "a\t"+hexSet(set...)+"\nb\t\n")
	var pairs strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&pairs, "a\tb%05d\n", i)
	}
	side := newSideReader(shingles)
	src := &joinSource{main: stream.NewLines([]string{testutil.WriteFile(t, "p.tsv", pairs.String())}), side: side, copies: true, order: "%s %s %d"}
	defer src.Close()
	record := 2000 * 17
	lines, pieces := 0, 0
	for {
		c, err := src.Next()
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			break
		}
		n := bytes.Count(c.Data, []byte{'\n'})
		if out := n * record; out > pieceBytes+record {
			t.Fatalf("a piece of %d lines writes about %d bytes, over %d", n, out, pieceBytes+record)
		}
		lines += n
		pieces++
		if len(c.Value.(*sideRecords).ids) != 1 {
			t.Fatalf("piece %d holds %d records of the file, want 1 (a's, again in each piece)", pieces, len(c.Value.(*sideRecords).ids))
		}
	}
	if lines != 5000 || pieces < 50 {
		t.Errorf("%d lines in %d pieces", lines, pieces)
	}
}
