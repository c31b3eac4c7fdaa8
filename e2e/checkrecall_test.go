package e2e

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdCheckRecall checks the output of verify against a corpus and the
// ground truth of what was planted in it (gencorpus -truth), with its own
// plain implementation of word shingles and exact similarity:
//
//	checkrecall [-k 5] [-threshold 0.8] [-containment] [-band-threshold J]
//	            [-min-recall 0.99] [-min-pairs N] corpus.tsv truth.tsv verified.tsv
//
// Recall: of the planted pairs whose similarity reaches the threshold (and,
// with -band-threshold, whose Jaccard similarity reaches J, the similarity
// the candidate search was tuned for), the fraction verify reported.
// Precision: every reported pair must truly reach the threshold, and the
// similarities verify wrote must be the exact ones.
//
// The similarity is the Jaccard similarity of the sets of word k-shingles,
// or with -containment the larger of the two containments |A∩B|/|A| and
// |A∩B|/|B|. It prints the counts and fails when recall is below
// -min-recall, fewer than -min-pairs planted pairs reach the threshold, or a
// reported pair is wrong.
func cmdCheckRecall(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! checkrecall")
	}
	fs := flag.NewFlagSet("checkrecall", flag.ContinueOnError)
	k := fs.Int("k", 5, "words per shingle")
	threshold := fs.Float64("threshold", 0.8, "least similarity")
	containment := fs.Bool("containment", false, "the similarity is the larger containment; verified lines hold jaccard c(A,B) c(B,A)")
	bandThreshold := fs.Float64("band-threshold", 0, "count planted pairs only when their Jaccard similarity reaches this too")
	minRecall := fs.Float64("min-recall", 0.99, "least recall")
	minPairs := fs.Int("min-pairs", 1, "least number of planted pairs that reach the threshold")
	fs.SetOutput(ts.Stderr())
	if err := fs.Parse(args); err != nil || fs.NArg() != 3 {
		ts.Fatalf("usage: checkrecall [flags] corpus.tsv truth.tsv verified.tsv")
	}
	corpus := readCorpus(ts, fs.Arg(0))
	sim := &similarity{corpus: corpus, k: *k, cache: map[string]map[string]bool{}}

	// Every reported pair must reach the threshold, with the similarities
	// verify wrote being the exact ones.
	reported := map[[2]string]bool{}
	var bad []string
	forEachLine(ts, fs.Arg(2), func(line string, no int) {
		if strings.HasPrefix(line, "#neardup") {
			return
		}
		f := strings.Split(line, "\t")
		want := 3
		if *containment {
			want = 5
		}
		if len(f) != want {
			ts.Fatalf("%s:%d: %d fields, want %d", fs.Arg(2), no, len(f), want)
		}
		a, b := f[0], f[1]
		if a >= b {
			ts.Fatalf("%s:%d: ids %s and %s are not in order", fs.Arg(2), no, a, b)
		}
		if reported[[2]string{a, b}] {
			ts.Fatalf("%s:%d: pair %s %s reported twice", fs.Arg(2), no, a, b)
		}
		reported[[2]string{a, b}] = true
		j, cab, cba := sim.scores(ts, a, b)
		exact := []float64{j}
		measure := j
		if *containment {
			exact = append(exact, cab, cba)
			measure = max(cab, cba)
		}
		for i, e := range exact {
			got, err := strconv.ParseFloat(f[2+i], 64)
			if err != nil || got < e-1e-6 || got > e+1e-6 {
				bad = append(bad, fmt.Sprintf("%s:%d: %s %s: similarity %s, exact %.6f", fs.Arg(2), no, a, b, f[2+i], e))
			}
		}
		if measure < *threshold {
			bad = append(bad, fmt.Sprintf("%s:%d: %s %s: similarity %.6f is below the threshold %g", fs.Arg(2), no, a, b, measure, *threshold))
		}
	})

	// Recall of the planted pairs that reach the threshold.
	planted, eligible, found := 0, 0, 0
	var kinds []string
	byKind := map[string]*[2]int{} // eligible, found
	var near [2]int                // eligible and found within 0.05 of the threshold
	var missed []string
	forEachLine(ts, fs.Arg(1), func(line string, no int) {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			ts.Fatalf("%s:%d: want copy TAB source TAB kind", fs.Arg(1), no)
		}
		planted++
		kind := f[2]
		if byKind[kind] == nil {
			byKind[kind] = new([2]int)
			kinds = append(kinds, kind)
		}
		a, b := min(f[0], f[1]), max(f[0], f[1])
		j, cab, cba := sim.scores(ts, a, b)
		measure := j
		if *containment {
			measure = max(cab, cba)
		}
		if measure < *threshold || j < *bandThreshold {
			return
		}
		eligible++
		byKind[kind][0]++
		isNear := measure < *threshold+0.05
		if isNear {
			near[0]++
		}
		if reported[[2]string{a, b}] {
			found++
			byKind[kind][1]++
			if isNear {
				near[1]++
			}
		} else if len(missed) < 10 {
			missed = append(missed, fmt.Sprintf("%s %s (%s, jaccard %.6f, containment %.6f %.6f)", a, b, f[2], j, cab, cba))
		}
	})
	name := "jaccard"
	if *containment {
		name = "containment"
	}
	recall := float64(found) / float64(max(eligible, 1))
	fmt.Fprintf(ts.Stdout(), "planted pairs: %d\n", planted)
	fmt.Fprintf(ts.Stdout(), "planted pairs with %s >= %g", name, *threshold)
	if *bandThreshold > 0 {
		fmt.Fprintf(ts.Stdout(), " and jaccard >= %g", *bandThreshold)
	}
	fmt.Fprintf(ts.Stdout(), ": %d, found %d, recall %.4f\n", eligible, found, recall)
	slices.Sort(kinds)
	for _, kind := range kinds {
		fmt.Fprintf(ts.Stdout(), "  %s: found %d of %d\n", kind, byKind[kind][1], byKind[kind][0])
	}
	fmt.Fprintf(ts.Stdout(), "  below %.2f: found %d of %d\n", *threshold+0.05, near[1], near[0])
	fmt.Fprintf(ts.Stdout(), "reported pairs: %d, wrong %d\n", len(reported), len(bad))
	for _, m := range missed {
		fmt.Fprintf(ts.Stdout(), "missed: %s\n", m)
	}
	if len(bad) > 0 {
		ts.Fatalf("%d reported pairs are wrong:\n%s", len(bad), strings.Join(bad[:min(len(bad), 10)], "\n"))
	}
	if eligible < *minPairs {
		ts.Fatalf("only %d planted pairs reach the threshold, want at least %d for the recall to mean something", eligible, *minPairs)
	}
	if recall < *minRecall {
		ts.Fatalf("recall %.4f is below %g", recall, *minRecall)
	}
}

// similarity computes exact similarities of documents of a corpus.
type similarity struct {
	corpus map[string]string
	k      int
	cache  map[string]map[string]bool
}

// scores returns the Jaccard similarity of documents a and b and the
// containments c(a,b) = |A∩B|/|A| and c(b,a).
func (s *similarity) scores(ts *testscript.TestScript, a, b string) (j, cab, cba float64) {
	x, y := s.shingles(ts, a), s.shingles(ts, b)
	inter := 0
	for sh := range x {
		if y[sh] {
			inter++
		}
	}
	union := len(x) + len(y) - inter
	if union > 0 {
		j = float64(inter) / float64(union)
	}
	if len(x) > 0 {
		cab = float64(inter) / float64(len(x))
	}
	if len(y) > 0 {
		cba = float64(inter) / float64(len(y))
	}
	return j, cab, cba
}

// shingles returns the set of word k-shingles of a document: its words
// (maximal runs of letters and digits, lower-cased) k at a time, joined by
// a space; a document of fewer than k words has one shingle, all of them.
// The sets of the last few hundred documents asked for are kept.
func (s *similarity) shingles(ts *testscript.TestScript, id string) map[string]bool {
	if set, ok := s.cache[id]; ok {
		return set
	}
	text, ok := s.corpus[id]
	if !ok {
		ts.Fatalf("document %s is not in the corpus", id)
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	set := map[string]bool{}
	if len(words) > 0 && len(words) < s.k {
		set[strings.Join(words, " ")] = true
	}
	for i := 0; i+s.k <= len(words); i++ {
		set[strings.Join(words[i:i+s.k], " ")] = true
	}
	if len(s.cache) >= 500 {
		clear(s.cache)
	}
	s.cache[id] = set
	return set
}

// readCorpus reads a TSV corpus, id TAB text with the text escaped, into a
// map from id to text.
func readCorpus(ts *testscript.TestScript, name string) map[string]string {
	docs := map[string]string{}
	forEachLine(ts, name, func(line string, no int) {
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			ts.Fatalf("%s:%d: want id TAB text", name, no)
		}
		docs[id] = unescape(text)
	})
	return docs
}

// unescape undoes the escaping of TSV fields: \t, \n, \r and \\ stand for
// TAB, LF, CR and a backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// forEachLine calls fn with each line of a file and its number.
func forEachLine(ts *testscript.TestScript, name string, fn func(line string, no int)) {
	f, err := os.Open(ts.MkAbs(name))
	ts.Check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	no := 0
	for sc.Scan() {
		no++
		fn(sc.Text(), no)
	}
	ts.Check(sc.Err())
}
