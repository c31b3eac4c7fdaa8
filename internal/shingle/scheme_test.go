package shingle

// Tests that the tok64 scheme (unit hashes combined by a polynomial mod
// 2^64, then a 64-bit mixer) is as good as hashing the joined bytes (xxh64):
// no collisions among millions of distinct shingles, however structured;
// balanced and pairwise independent bits; order sensitivity; and MinHash
// estimates that meet the same bars on either scheme.

import (
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/internal/minhash"
	"github.com/neardup/neardup/internal/testutil"
	"github.com/neardup/neardup/internal/token"
)

// deBruijn returns a cyclic sequence over k symbols in which every string
// of length n occurs exactly once as a window: the concatenation, in
// lexicographic order, of the Lyndon words whose length divides n
// (Fredricksen, Kessler and Maiorana).
func deBruijn(k, n int) []int {
	a := make([]int, n+1)
	var seq []int
	var gen func(t, p int)
	gen = func(t, p int) {
		if t > n {
			if n%p == 0 {
				seq = append(seq, a[1:p+1]...)
			}
			return
		}
		a[t] = a[t-p]
		gen(t+1, p)
		for j := a[t-p] + 1; j < k; j++ {
			a[t] = j
			gen(t+1, t)
		}
	}
	gen(1, 1)
	return seq
}

// everyString returns a text made of the units whose windows of n units
// are every string of n units exactly once: a de Bruijn sequence followed
// by its first n-1 symbols. sep goes between units.
func everyString(units []string, n int, sep string) []byte {
	seq := deBruijn(len(units), n)
	seq = append(seq, seq[:n-1]...)
	var b strings.Builder
	for i, s := range seq {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(units[s])
	}
	return []byte(b.String())
}

// Units chosen to collide if anything in a scheme were sloppy: prefixes and
// concatenations of one another, reversals, repeats, digits, multi-byte
// letters.
var (
	stressWords = []string{"a", "b", "ab", "ba", "aa", "abc", "c", "1", "12", "2",
		"x", "xy", "yx", "the", "them", "he", "é", "ée", "z9", "9z"}
	stressRunes = []string{"a", "b", "é", "中", "1"}
)

// everyShingle hashes every word 5-shingle over stressWords (20^5 =
// 3,200,000) or every char 9-shingle over stressRunes (5^9 = 1,953,125),
// once per test binary.
var everyShingle = sync.OnceValue(func() map[string][]uint64 {
	words := everyString(stressWords, 5, " ")
	chars := everyString(stressRunes, 9, "")
	out := map[string][]uint64{}
	for _, scheme := range []Scheme{Tok64, XXH64} {
		out["word/"+scheme.String()] = New(Options{Unit: Word, K: 5, Scheme: scheme, Seed: 1}).Append(nil, words)
		out["char/"+scheme.String()] = New(Options{Unit: Char, K: 9, Scheme: scheme, Seed: 1}).Append(nil, chars)
	}
	return out
})

// TestNoCollisions: millions of distinct, maximally structured shingles
// (every string of 5 words over a vocabulary of 20, every string of 9 code
// points over 5) get distinct hashes under both schemes.
func TestNoCollisions(t *testing.T) {
	testutil.Slow(t)
	want := map[string]int{"word": 3200000, "char": 1953125}
	for name, hashes := range everyShingle() {
		unit := strings.Split(name, "/")[0]
		if len(hashes) != want[unit] {
			t.Fatalf("%s: %d shingles, want %d", name, len(hashes), want[unit])
		}
		sorted := slices.Clone(hashes)
		slices.Sort(sorted)
		if d := len(sorted) - len(slices.Compact(sorted)); d != 0 {
			t.Errorf("%s: %d collisions among %d distinct shingles", name, d, len(hashes))
		}
	}
}

// transpose64 transposes a 64×64 bit matrix in place: afterwards bit c of
// m[r] is bit 63-r of the old m[63-c] (Hacker's Delight, 7-3).
func transpose64(m *[64]uint64) {
	mask := uint64(0x00000000ffffffff)
	for j := 32; j != 0; j >>= 1 {
		for k := 0; k < 64; k = (k + j + 1) &^ j {
			t := (m[k] ^ (m[k+j] >> j)) & mask
			m[k] ^= t
			m[k+j] ^= t << j
		}
		mask ^= mask << (j >> 1)
	}
}

// bitStats returns, over hashes (the first multiple of 64 of them), the
// largest deviation from 1/2 of a bit's frequency of ones and the largest
// correlation between two bits, each in standard errors of an ideal hash
// (0.5/sqrt(N) and 1/sqrt(N)).
func bitStats(hashes []uint64) (freqDev, corrDev float64) {
	words := len(hashes) / 64
	n := 64 * words
	// cols[63-b] holds bit b of every hash, 64 hashes a word.
	var cols [64][]uint64
	for b := range cols {
		cols[b] = make([]uint64, words)
	}
	var block [64]uint64
	for w := range words {
		copy(block[:], hashes[64*w:])
		transpose64(&block)
		for b := range block {
			cols[b][w] = block[b]
		}
	}
	count := func(x []uint64) int {
		c := 0
		for _, v := range x {
			c += bits.OnesCount64(v)
		}
		return c
	}
	N := float64(n)
	var p [64]float64
	for b := range cols {
		p[b] = float64(count(cols[b])) / N
		freqDev = max(freqDev, math.Abs(p[b]-0.5)/(0.5/math.Sqrt(N)))
	}
	for i := range 64 {
		for j := i + 1; j < 64; j++ {
			both := 0
			for w := range words {
				both += bits.OnesCount64(cols[i][w] & cols[j][w])
			}
			r := (float64(both)/N - p[i]*p[j]) / math.Sqrt(p[i]*(1-p[i])*p[j]*(1-p[j]))
			corrDev = max(corrDev, math.Abs(r)*math.Sqrt(N))
		}
	}
	return freqDev, corrDev
}

// TestBitBalance: over the structured shingles of TestNoCollisions, every
// output bit is 1 half the time and no two bits are correlated, within 5
// standard errors (64 frequencies and 2016 correlations; an ideal hash
// exceeds that with probability about 0.1%).
func TestBitBalance(t *testing.T) {
	names := []string{"word/tok64", "char/tok64", "word/xxh64", "char/xxh64"}
	for _, name := range names {
		f, c := bitStats(everyShingle()[name])
		t.Logf("%s: largest bit-frequency deviation %.2f se, largest bit-pair correlation %.2f se", name, f, c)
		if f > 5 || c > 5 {
			t.Errorf("%s: bit frequency off by %.2f standard errors, bit pair correlated by %.2f; want both below 5", name, f, c)
		}
	}
}

// oneShingle hashes a text that is exactly one shingle.
func oneShingle(t *testing.T, s *Shingler, text string) uint64 {
	t.Helper()
	h := s.Append(nil, []byte(text))
	if len(h) != 1 {
		t.Fatalf("%q: %d shingles, want 1", text, len(h))
	}
	return h[0]
}

// flips accumulates, per output bit, how often two hashes differ.
type flips struct {
	pairs int
	bit   [64]int
	same  int
}

func (f *flips) add(x, y uint64) {
	f.pairs++
	if x == y {
		f.same++
	}
	d := x ^ y
	for d != 0 {
		f.bit[bits.TrailingZeros64(d)]++
		d &= d - 1
	}
}

// worst returns the largest deviation of a bit's flip rate from 1/2, in
// standard errors.
func (f *flips) worst() float64 {
	se := 0.5 / math.Sqrt(float64(f.pairs))
	w := 0.0
	for _, c := range f.bit {
		w = max(w, math.Abs(float64(c)/float64(f.pairs)-0.5)/se)
	}
	return w
}

func (f *flips) check(t *testing.T, what string) {
	t.Helper()
	w := f.worst()
	t.Logf("%s: %d pairs, worst bit flip rate %.2f se from 1/2", what, f.pairs, w)
	if f.same > 0 {
		t.Errorf("%s: %d of %d pairs of different shingles hash alike", what, f.same, f.pairs)
	}
	if w > 5 {
		t.Errorf("%s: a bit flips with rate %.2f standard errors away from 1/2, want below 5", what, w)
	}
}

// randomWords returns n distinct random lower-case words of 1 to 8 letters.
func randomWords(rng *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var words []string
	for len(words) < n {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// TestAvalanche: changing one unit of a shingle, at any position, flips
// each output bit of tok64 with probability 1/2.
func TestAvalanche(t *testing.T) {
	const pairs = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := randomWords(rng, 1000)
	sh := New(Options{Unit: Word, K: 5, Scheme: Tok64, Seed: 3})
	var byPos [5]flips
	toks := make([]string, 5)
	for range pairs {
		for i := range toks {
			toks[i] = vocab[rng.IntN(len(vocab))]
		}
		h := oneShingle(t, sh, strings.Join(toks, " "))
		for p := range toks {
			old := toks[p]
			for toks[p] == old {
				toks[p] = vocab[rng.IntN(len(vocab))]
			}
			byPos[p].add(h, oneShingle(t, sh, strings.Join(toks, " ")))
			toks[p] = old
		}
	}
	for p := range byPos {
		byPos[p].check(t, fmt.Sprintf("word token %d of 5 changed", p+1))
	}

	ch := New(Options{Unit: Char, K: 9, Scheme: Tok64, Seed: 3})
	alphabet := []rune("abcdefghijklmnopqrstuvwxyz0123456789éüß中文")
	var charPos [9]flips
	runes := make([]rune, 9)
	for range pairs {
		for i := range runes {
			runes[i] = alphabet[rng.IntN(len(alphabet))]
		}
		h := oneShingle(t, ch, string(runes))
		for p := range runes {
			old := runes[p]
			for runes[p] == old {
				runes[p] = alphabet[rng.IntN(len(alphabet))]
			}
			charPos[p].add(h, oneShingle(t, ch, string(runes)))
			runes[p] = old
		}
	}
	for p := range charPos {
		charPos[p].check(t, fmt.Sprintf("char %d of 9 changed", p+1))
	}
}

// TestOrderSensitivity: the same units in another order hash unrelated.
// A polynomial's low bits can't tell some reorderings apart (the sum of
// the units mod 4 is invariant); the mixer must hide that.
func TestOrderSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := randomWords(rng, 300)

	// "a b a b" against "b a b a" for every two words.
	sh4 := New(Options{Unit: Word, K: 4, Scheme: Tok64, Seed: 0})
	var alternate flips
	for i, a := range vocab {
		for _, b := range vocab[i+1:] {
			alternate.add(oneShingle(t, sh4, a+" "+b+" "+a+" "+b), oneShingle(t, sh4, b+" "+a+" "+b+" "+a))
		}
	}
	alternate.check(t, `"a b a b" against "b a b a"`)

	// A shingle against its reversal and its rotation.
	sh5 := New(Options{Unit: Word, K: 5, Scheme: Tok64, Seed: 0})
	var reversed, rotated flips
	toks := make([]string, 5)
	for range 20000 {
		for i := range toks {
			toks[i] = vocab[rng.IntN(len(vocab))]
		}
		rev := slices.Clone(toks)
		slices.Reverse(rev)
		if slices.Equal(rev, toks) {
			continue
		}
		rot := append(slices.Clone(toks[1:]), toks[0])
		h := oneShingle(t, sh5, strings.Join(toks, " "))
		reversed.add(h, oneShingle(t, sh5, strings.Join(rev, " ")))
		if !slices.Equal(rot, toks) {
			rotated.add(h, oneShingle(t, sh5, strings.Join(rot, " ")))
		}
	}
	reversed.check(t, "a shingle against its reversal")
	rotated.check(t, "a shingle against its rotation")

	// Every permutation of 9 distinct code points: 362880 shingles of
	// the same units, all distinct, with balanced bits.
	ch := New(Options{Unit: Char, K: 9, Scheme: Tok64, Seed: 0})
	perm := []rune("abcdefgh中")
	var hashes []uint64
	var permute func(k int)
	permute = func(k int) {
		if k == len(perm) {
			hashes = append(hashes, oneShingle(t, ch, string(perm)))
			return
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			permute(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	permute(0)
	sorted := slices.Clone(hashes)
	slices.Sort(sorted)
	if d := len(sorted) - len(slices.Compact(sorted)); d != 0 {
		t.Errorf("%d collisions among the %d permutations of 9 code points", d, len(hashes))
	}
	f, c := bitStats(hashes)
	t.Logf("permutations of 9 code points: largest bit-frequency deviation %.2f se, bit-pair correlation %.2f se", f, c)
	if f > 5 || c > 5 {
		t.Errorf("permutations of 9 code points: bit frequency off by %.2f se, bit pair correlated by %.2f se; want below 5", f, c)
	}
}

// stat accumulates a sample's mean, standard deviation and range.
type stat struct {
	n          int
	sum, sumSq float64
	min, max   float64
}

func (s *stat) add(x float64) {
	if s.n == 0 || x < s.min {
		s.min = x
	}
	if s.n == 0 || x > s.max {
		s.max = x
	}
	s.n++
	s.sum += x
	s.sumSq += x * x
}

func (s *stat) mean() float64 { return s.sum / float64(s.n) }

func (s *stat) sd() float64 {
	m := s.mean()
	return math.Sqrt(max((s.sumSq-float64(s.n)*m*m)/float64(s.n-1), 0))
}

// distinctSorted returns the distinct values of hs, ascending (a shingle
// record's set).
func distinctSorted(hs []uint64) []uint64 {
	slices.Sort(hs)
	return slices.Compact(hs)
}

// jaccardCounts returns |A ∩ B| and |A ∪ B| of two ascending sets.
func jaccardCounts(a, b []uint64) (inter, union int) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return inter, len(a) + len(b) - inter
}

// nearDuplicate returns a copy of doc in which each token is, with
// probability q, replaced, deleted or followed by an inserted token.
func nearDuplicate(rng *rand.Rand, doc []string, q float64, word func() string) []string {
	var out []string
	for _, w := range doc {
		if rng.Float64() >= q {
			out = append(out, w)
			continue
		}
		switch rng.IntN(3) {
		case 0:
			out = append(out, word())
		case 1:
		default:
			out = append(out, w, word())
		}
	}
	return out
}

// TestMinHashOnSchemes: on synthetic near-duplicate document pairs, the
// exact Jaccard similarity of the shingle sets is the same under both
// schemes, and MinHash estimates computed from either scheme's hashes meet
// the same bars: |bias| < 0.01, and the spread of the error, in units of
// sqrt(J(1-J)/n), within 15% of 1 for the classic signature. OPH's
// spread depends on the set size (see the minhash tests), so for OPH the
// schemes are compared with each other.
func TestMinHashOnSchemes(t *testing.T) {
	testutil.Slow(t)
	const docs, length, n = 2000, 400, 128
	rng := rand.New(rand.NewPCG(5, 6))
	vocab := randomWords(rng, 5000)
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	shinglers := map[Scheme]*Shingler{}
	for _, s := range []Scheme{Tok64, XXH64} {
		shinglers[s] = New(Options{Unit: Word, K: 5, Scheme: s, Seed: 9})
	}
	family, oph := minhash.NewFamily(n, 2), minhash.NewOPH(n, 2)
	type tally struct{ err, z stat }
	results := map[string]*tally{}
	sa, sb := make([]uint64, n), make([]uint64, n)
	var js stat
	for range docs {
		doc := make([]string, length)
		for i := range doc {
			doc[i] = word()
		}
		dup := nearDuplicate(rng, doc, 0.15*rng.Float64(), word)
		textA, textB := []byte(strings.Join(doc, " ")), []byte(strings.Join(dup, " "))
		var counts [2][2]int
		for k, scheme := range []Scheme{Tok64, XXH64} {
			a := distinctSorted(shinglers[scheme].Append(nil, textA))
			b := distinctSorted(shinglers[scheme].Append(nil, textB))
			inter, union := jaccardCounts(a, b)
			counts[k] = [2]int{inter, union}
			j := float64(inter) / float64(union)
			if k == 0 {
				js.add(j)
			}
			for _, m := range []struct {
				name string
				sig  interface{ Signature(sig, set []uint64) }
			}{{"minhash", family}, {"oph", oph}} {
				m.sig.Signature(sa, a)
				m.sig.Signature(sb, b)
				e := minhash.Similarity(sa, sb) - j
				key := m.name + "/" + scheme.String()
				if results[key] == nil {
					results[key] = &tally{}
				}
				results[key].err.add(e)
				if j > 0 && j < 1 {
					results[key].z.add(e / math.Sqrt(j*(1-j)/n))
				}
			}
		}
		if counts[0] != counts[1] {
			t.Fatalf("tok64 sets share %d of %d shingles, xxh64 sets %d of %d: the schemes disagree on exact Jaccard",
				counts[0][0], counts[0][1], counts[1][0], counts[1][1])
		}
	}
	t.Logf("%d pairs, exact Jaccard from %.2f to %.2f, mean %.2f", docs, js.min, js.max, js.mean())
	for _, key := range []string{"minhash/tok64", "minhash/xxh64", "oph/tok64", "oph/xxh64"} {
		r := results[key]
		t.Logf("%s: bias %+.4f, sd of the error in units of sqrt(J(1-J)/n) %.3f", key, r.err.mean(), r.z.sd())
		if math.Abs(r.err.mean()) >= 0.01 {
			t.Errorf("%s: mean error %+.4f, want |bias| < 0.01", key, r.err.mean())
		}
		if strings.HasPrefix(key, "minhash") && math.Abs(r.z.sd()-1) > 0.15 {
			t.Errorf("%s: sd %.3f × sqrt(J(1-J)/n), want within 0.15 of 1", key, r.z.sd())
		}
	}
	// Both schemes' spreads estimate the same number with a standard error
	// of about 1/sqrt(2·docs) each.
	for _, m := range []string{"minhash", "oph"} {
		tok, xxh := results[m+"/tok64"], results[m+"/xxh64"]
		if d := math.Abs(tok.z.sd() - xxh.z.sd()); d > 0.1 {
			t.Errorf("%s: spread %.3f on tok64, %.3f on xxh64: want within 0.1", m, tok.z.sd(), xxh.z.sd())
		}
	}
}

// goSources returns the text of up to n .go files of 1 to 32 KiB under
// $(go env GOROOT)/src, in lexical order of their paths. It skips the test
// when the Go tree is not there.
func goSources(tb testing.TB, n int) [][]byte {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	if err != nil {
		tb.Skipf("no Go tree to read text from: go env GOROOT: %v", err)
	}
	var texts [][]byte
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || len(texts) == n {
			return fs.SkipAll
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() < 1<<10 || info.Size() > 32<<10 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil {
			texts = append(texts, b)
		}
		return nil
	})
	if len(texts) < n {
		tb.Skipf("found %d Go files under %s, want %d (%v)", len(texts), root, n, err)
	}
	return texts
}

// shingleStrings returns the distinct shingles of text as strings: word
// shingles are the tokens joined by one space, char shingles the code points
// of the normalised text.
func shingleStrings(unit Unit, k int, text []byte) map[string]bool {
	var units []string
	if unit == Word {
		var tk token.Tokenizer
		tk.Reset(text)
		for n := tk.Scan(); n > 0; n = tk.Scan() {
			for i := range n {
				units = append(units, string(tk.Token(i)))
			}
		}
	} else {
		var cn token.Chars
		cn.Reset(text)
		for {
			r, ok := cn.Next()
			if !ok {
				break
			}
			units = append(units, string(r))
		}
	}
	sep := ""
	if unit == Word {
		sep = " "
	}
	set := map[string]bool{}
	if len(units) > 0 && len(units) < k {
		set[strings.Join(units, sep)] = true
	}
	for i := 0; i+k <= len(units); i++ {
		set[strings.Join(units[i:i+k], sep)] = true
	}
	return set
}

// TestSchemesOnRealText: on Go source files, each scheme gives every file as
// many distinct hashes as it has distinct shingles (no collision within a
// file, nor across the files for word shingles), so the exact Jaccard
// similarity of any two files is the same under both schemes.
func TestSchemesOnRealText(t *testing.T) {
	testutil.Slow(t)
	texts := goSources(t, 200)
	for _, c := range []struct {
		unit Unit
		k    int
	}{{Word, 5}, {Char, 9}} {
		var sets [2][][]uint64
		var all [2][]uint64
		allStrings := map[string]bool{}
		for i, text := range texts {
			strs := shingleStrings(c.unit, c.k, text)
			if c.unit == Word {
				for s := range strs {
					allStrings[s] = true
				}
			}
			for k, scheme := range []Scheme{Tok64, XXH64} {
				hs := distinctSorted(New(Options{Unit: c.unit, K: c.k, Scheme: scheme, Seed: 0}).Append(nil, text))
				if len(hs) != len(strs) {
					t.Fatalf("%s %s file %d: %d distinct hashes for %d distinct shingles", c.unit, scheme, i, len(hs), len(strs))
				}
				sets[k] = append(sets[k], hs)
				all[k] = append(all[k], hs...)
			}
		}
		for k := range all {
			all[k] = distinctSorted(all[k])
		}
		if c.unit == Word && (len(all[0]) != len(allStrings) || len(all[1]) != len(allStrings)) {
			t.Errorf("word: %d distinct shingles in %d files, %d tok64 hashes, %d xxh64 hashes", len(allStrings), len(texts), len(all[0]), len(all[1]))
		}
		differ := 0
		var mean float64
		for i := 0; i+1 < len(texts); i++ {
			it, ut := jaccardCounts(sets[0][i], sets[0][i+1])
			ix, ux := jaccardCounts(sets[1][i], sets[1][i+1])
			mean += float64(it) / float64(ut)
			if it != ix || ut != ux {
				differ++
				t.Errorf("%s: files %d and %d share %d of %d tok64 hashes, %d of %d xxh64 hashes", c.unit, i, i+1, it, ut, ix, ux)
			}
		}
		t.Logf("%s k=%d: %d files, %d distinct tok64 hashes, %d xxh64; mean Jaccard of neighbouring files %.3f, equal under both schemes for %d of %d pairs",
			c.unit, c.k, len(texts), len(all[0]), len(all[1]), mean/float64(len(texts)-1), len(texts)-1-differ, len(texts)-1)
	}
}
