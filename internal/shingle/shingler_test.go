package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/neardup/neardup/internal/testutil"
	"github.com/neardup/neardup/internal/token"
)

// xxh64 is XXH64 of s with seed, computed apart from the Shingler.
func xxh64(seed uint64, s string) uint64 {
	d := xxhash.NewWithSeed(seed)
	d.WriteString(s)
	return d.Sum64()
}

// windows returns the units of each shingle of k units: none for no units,
// all of them for fewer than k.
func windows[T any](units []T, k int) [][]T {
	switch {
	case len(units) == 0:
		return nil
	case len(units) < k:
		return [][]T{units}
	}
	var out [][]T
	for i := 0; i+k <= len(units); i++ {
		out = append(out, units[i:i+k])
	}
	return out
}

// stopWindows returns the shingles of the stopword unit: each stop word and
// the k-1 tokens after it, fewer at the end.
func stopWindows(tokens []string, k int, sw *Stopwords) [][]string {
	var out [][]string
	for i, t := range tokens {
		if sw.Contains([]byte(t)) {
			out = append(out, tokens[i:min(i+k, len(tokens))])
		}
	}
	return out
}

// refShingles computes the shingle hashes of text from the reference
// tokens and code points: xxh64 of the joined bytes, or tok64 as combine
// of the unit hashes (XXH64 of a token, token.RuneHash of a code point).
func refShingles(opt Options, text string) []uint64 {
	key := seedKey(opt.Seed)
	var out []uint64
	if opt.Unit == Char {
		for _, w := range windows(testutil.RefChars(text), opt.K) {
			if opt.Scheme == XXH64 {
				out = append(out, xxh64(opt.Seed, string(w)))
				continue
			}
			var units []uint64
			for _, r := range w {
				units = append(units, token.RuneHash(r))
			}
			out = append(out, combine(units, key))
		}
		return out
	}
	toks := testutil.RefTokens(text)
	var ws [][]string
	if opt.Unit == Word {
		ws = windows(toks, opt.K)
	} else {
		sw := opt.Stopwords
		if sw == nil {
			sw = English()
		}
		ws = stopWindows(toks, opt.K, sw)
	}
	for _, w := range ws {
		if opt.Scheme == XXH64 {
			out = append(out, xxh64(opt.Seed, strings.Join(w, " ")))
			continue
		}
		var units []uint64
		for _, t := range w {
			units = append(units, xxhash.Sum64String(t))
		}
		out = append(out, combine(units, key))
	}
	return out
}

var shingleTexts = []string{
	"",
	"   ",
	"one",
	"Two words",
	"The quick brown fox jumps over the lazy dog, and the dog sleeps on.",
	"It was the best of times, it was the worst of times, it was the age of wisdom",
	"日本語のテキストを文字で分ける",
	"Ünïcödé  text\twith\n\n many   spaces and ÉCOLE",
	"a\xffb\xfe c",
	"the the the the the the",
	"a of the",
}

func TestShinglesMatchReference(t *testing.T) {
	for _, unit := range []Unit{Char, Word, Stopword} {
		for _, scheme := range []Scheme{Tok64, XXH64} {
			for _, k := range []int{1, 2, 3, 5, 9, 40} {
				for _, seed := range []uint64{0, 42} {
					opt := Options{Unit: unit, K: k, Scheme: scheme, Seed: seed}
					sh := New(opt)
					for _, text := range shingleTexts {
						got := sh.Append(nil, []byte(text))
						want := refShingles(opt, text)
						if !slices.Equal(got, want) {
							t.Errorf("%s k=%d %s seed=%d %q:\n got %x\nwant %x", unit, k, scheme, seed, text, got, want)
						}
					}
				}
			}
		}
	}
}

func TestShingleCounts(t *testing.T) {
	tests := []struct {
		unit Unit
		k    int
		text string
		want int
	}{
		{Word, 3, "", 0},
		{Word, 3, "!!! ...", 0},
		{Word, 3, "one", 1},
		{Word, 3, "one two", 1},
		{Word, 3, "one two three", 1},
		{Word, 3, "one two three four", 2},
		{Word, 1, "a b c d e", 5},
		{Word, 2, "日本語", 2},
		{Char, 3, "", 0},
		{Char, 3, "ab", 1},
		{Char, 3, "abc", 1},
		{Char, 3, "abcd", 2},
		{Char, 3, "   ", 1}, // one space
		{Char, 2, "日本語", 2}, // code points, not bytes
		{Char, 1, "aaa", 3}, // with repetitions
		{Stopword, 3, "the cat sat on the mat", 3},
		{Stopword, 3, "cat sat mat", 0},
		{Stopword, 3, "on", 1},
	}
	for _, tt := range tests {
		for _, scheme := range []Scheme{Tok64, XXH64} {
			got := New(Options{Unit: tt.unit, K: tt.k, Scheme: scheme}).Append(nil, []byte(tt.text))
			if len(got) != tt.want {
				t.Errorf("%s k=%d %s %q: %d shingles, want %d", tt.unit, tt.k, scheme, tt.text, len(got), tt.want)
			}
		}
	}
}

// Known values: the xxh64 scheme is plain XXH64 of the shingle's bytes.
func TestXXH64KnownValues(t *testing.T) {
	sh := New(Options{Unit: Char, K: 3, Scheme: XXH64})
	if got := sh.Append(nil, []byte("ABC")); len(got) != 1 || got[0] != 0x44bc2cf5ad770999 {
		t.Errorf("char 3-shingle of ABC = %x, want XXH64(abc) = 44bc2cf5ad770999", got)
	}
	sh = New(Options{Unit: Word, K: 2, Scheme: XXH64})
	got := sh.Append(nil, []byte("Hello,   WORLD"))
	if len(got) != 1 || got[0] != xxhash.Sum64String("hello world") {
		t.Errorf("word 2-shingle of Hello, WORLD = %x, want XXH64(\"hello world\")", got)
	}
}

// combine is the polynomial of the package doc, mixed with the seed key.
func TestCombine(t *testing.T) {
	const c = 0x3c6ef372fe94f82b
	key := seedKey(7)
	u1, u2, u3 := uint64(0x1111), uint64(0x2222), uint64(0x3333)
	tests := []struct {
		units []uint64
		want  uint64
	}{
		{[]uint64{u1}, Mix64((u1 + 1*c) ^ key)},
		{[]uint64{u1, u2}, Mix64((u1*polyBase + u2 + 2*c) ^ key)},
		{[]uint64{u1, u2, u3}, Mix64((u1*polyBase*polyBase + u2*polyBase + u3 + 3*c) ^ key)},
	}
	for _, tt := range tests {
		if got := combine(tt.units, key); got != tt.want {
			t.Errorf("combine(%x) = %x, want %x", tt.units, got, tt.want)
		}
	}
	if combine([]uint64{u1, u2}, key) == combine([]uint64{u2, u1}, key) {
		t.Errorf("combine ignores the order of units")
	}
	if combine([]uint64{u1}, key) == combine([]uint64{u1}, seedKey(8)) {
		t.Errorf("combine ignores the seed")
	}
	if Mix64(0) != 0 || Mix64(1) == 1 || Mix64(1) == Mix64(2) {
		t.Errorf("Mix64(0), Mix64(1), Mix64(2) = %x, %x, %x", Mix64(0), Mix64(1), Mix64(2))
	}
}

// A window that rolls over a long text, its units added in batches of any
// size, gives the hashes that combine gives over each slice of unit hashes.
func TestWindowRolls(t *testing.T) {
	units := make([]uint64, 200)
	for i := range units {
		units[i] = Mix64(uint64(i))
	}
	key := seedKey(1)
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{1, 2, 7, 64, 199, 200} {
		var w window
		w.reset(k)
		var got []uint64
		for rest := units; len(rest) > 0; {
			b := min(len(rest), r.IntN(10))
			got = w.add(got, rest[:b], key)
			rest = rest[b:]
		}
		if len(got) != len(units)-k+1 {
			t.Fatalf("k=%d: %d windows of %d units", k, len(got), len(units))
		}
		for i, h := range got {
			if want := combine(units[i:i+k], key); h != want {
				t.Fatalf("k=%d: window from %d = %x, combine gives %x", k, i, h, want)
			}
		}
		if short := w.short(nil, key); len(short) != 0 {
			t.Fatalf("k=%d: a text of %d units has a short shingle", k, len(units))
		}
	}
}

func TestShinglerSeedAndAppend(t *testing.T) {
	text := []byte("some words to shingle here")
	for _, scheme := range []Scheme{Tok64, XXH64} {
		a := New(Options{Unit: Word, K: 2, Scheme: scheme, Seed: 1}).Append(nil, text)
		b := New(Options{Unit: Word, K: 2, Scheme: scheme, Seed: 2}).Append(nil, text)
		for i := range a {
			if a[i] == b[i] {
				t.Errorf("%s: seeds 1 and 2 give the same hash %x", scheme, a[i])
			}
		}
		// Append keeps what dst holds, and a Shingler can be reused.
		sh := New(Options{Unit: Word, K: 2, Scheme: scheme, Seed: 1})
		sh.Append(nil, []byte("something else entirely, longer than the text"))
		got := sh.Append([]uint64{99}, text)
		if got[0] != 99 || !slices.Equal(got[1:], a) {
			t.Errorf("%s: Append to a prefix after another text = %x, want 99 then %x", scheme, got, a)
		}
	}
	// K below 1 is taken as 1.
	if got := New(Options{Unit: Word, K: 0}).Append(nil, []byte("a b c")); len(got) != 3 {
		t.Errorf("K=0: %d shingles, want 3", len(got))
	}
}

func TestStopwords(t *testing.T) {
	en := English()
	if en.Name() != "english" || en.Len() < 100 {
		t.Errorf("English(): name %q, %d words", en.Name(), en.Len())
	}
	for _, w := range []string{"the", "a", "of", "and", "yourselves"} {
		if !en.Contains([]byte(w)) {
			t.Errorf("English() lacks %q", w)
		}
	}
	for _, w := range []string{"The", "cat", ""} {
		if en.Contains([]byte(w)) {
			t.Errorf("English() holds %q", w)
		}
	}

	list, err := ReadStopwords(strings.NewReader("# my list\nLe  la\n\n  les\n  # indented comment\n"))
	if err != nil {
		t.Fatal(err)
	}
	if list.Len() != 3 {
		t.Errorf("list holds %d words, want 3", list.Len())
	}
	for _, w := range []string{"le", "la", "les"} {
		if !list.Contains([]byte(w)) {
			t.Errorf("list lacks %q", w)
		}
	}
	same, _ := ReadStopwords(strings.NewReader("les LA le"))
	if !strings.HasPrefix(list.Name(), "xxh64:") || list.Name() != same.Name() {
		t.Errorf("names %q and %q: the same words in another order must have one name", list.Name(), same.Name())
	}
	other, _ := ReadStopwords(strings.NewReader("le la"))
	if other.Name() == list.Name() {
		t.Errorf("different lists share the name %q", other.Name())
	}

	for in, want := range map[string]string{
		"":               "no stop words",
		"# only comment": "no stop words",
		"ok\n...":        `line 2: "..." holds no word`,
		"ok\nl'homme":    `line 2: "l'homme" is more than one token`,
		"日本":             `line 1: "日本" is more than one token`,
	} {
		if _, err := ReadStopwords(strings.NewReader(in)); err == nil || err.Error() != want {
			t.Errorf("ReadStopwords(%q) error = %v, want %s", in, err, want)
		}
	}

	// A comment runs from '#' to the end of its line, also after words.
	commented, err := ReadStopwords(strings.NewReader("le la # articles\nles\n"))
	if err != nil || commented.Name() != list.Name() {
		t.Errorf("a list with trailing comments: %v, name %q, want the name of les la le, %q", err, commented.Name(), list.Name())
	}

	// A custom list is what the stopword unit uses.
	sh := New(Options{Unit: Stopword, K: 2, Stopwords: list})
	if got := sh.Append(nil, []byte("Le chat et la souris, the end")); len(got) != 2 {
		t.Errorf("custom list: %d shingles, want 2 (le chat, la souris)", len(got))
	}
}

func TestParseUnitScheme(t *testing.T) {
	for _, u := range []Unit{Char, Word, Stopword} {
		back, err := ParseUnit(u.String())
		if err != nil || back != u {
			t.Errorf("ParseUnit(%q) = %v, %v", u, back, err)
		}
	}
	if _, err := ParseUnit("bogus"); err == nil || err.Error() != `unknown unit "bogus": want char, word or stopword` {
		t.Errorf("ParseUnit(bogus): %v", err)
	}
	for _, s := range []Scheme{Tok64, XXH64} {
		back, err := ParseScheme(s.String())
		if err != nil || back != s {
			t.Errorf("ParseScheme(%q) = %v, %v", s, back, err)
		}
	}
	if _, err := ParseScheme("md5"); err == nil || err.Error() != `unknown hash "md5": want tok64 or xxh64` {
		t.Errorf("ParseScheme(md5): %v", err)
	}
	if got := fmt.Sprint(DefaultK(Char), DefaultK(Word), DefaultK(Stopword)); got != "5 5 3" {
		t.Errorf("DefaultK = %s, want 5 5 3", got)
	}
}

// Word shingles are found a Scan of at most token.MaxSpans tokens at a time, and
// char shingles roll over batches of token.MaxSpans code points: the windows
// across batches must be those of the reference.
func TestShinglerAcrossScans(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"a", "Go", "func", "ÉCOLE", "日", "x1", "\xff", "interface", "MixedCase"}
	var b strings.Builder
	for b.Len() < 40*token.MaxSpans {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteString(" .\n"[r.IntN(3):][:1])
	}
	text := b.String()
	for _, unit := range []Unit{Word, Char} {
		for _, k := range []int{1, 2, 5, 9} {
			opt := Options{Unit: unit, K: k, Scheme: Tok64, Seed: 3}
			if got, want := New(opt).Append(nil, []byte(text)), refShingles(opt, text); !slices.Equal(got, want) {
				t.Fatalf("%s k=%d: %d shingles, reference %d; first difference at %d", unit, k, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b []uint64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestWindowBatches: the window's hashes are combine's of each k units
// however the units come in batches: shorter than k, longer, one at a
// time, and a window that spans several batches.
func TestWindowBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	key := seedKey(3)
	for _, k := range []int{1, 2, 5, 9} {
		for trial := range 50 {
			units := make([]uint64, r.IntN(40))
			for i := range units {
				units[i] = r.Uint64()
			}
			var want []uint64
			for i := k; i <= len(units); i++ {
				want = append(want, combine(units[i-k:i], key))
			}
			var w window
			w.reset(k)
			var got []uint64
			for rest := units; len(rest) > 0; {
				m := min(len(rest), r.IntN(2*k+2))
				got = w.add(got, rest[:m], key)
				rest = rest[m:]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("k=%d, trial %d: %d units in batches gave %x, want %x", k, trial, len(units), got, want)
			}
		}
	}
}

// streamed returns what Stream hands on for text, each part's length,
// and checks that buf comes back empty.
func streamed(t *testing.T, s *Shingler, buf []uint64, text []byte) (all []uint64, parts []int) {
	t.Helper()
	buf = s.Stream(buf, text, func(p []uint64) {
		all = append(all, p...)
		parts = append(parts, len(p))
	})
	if len(buf) != 0 {
		t.Fatalf("Stream returned %d hashes in its buffer, want none", len(buf))
	}
	return all, parts
}

// Stream hands on Append's hashes in order, in parts of StreamPart
// hashes and at most a scan's more; a second text through the same
// buffer starts afresh.
func TestShinglerStream(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	words := []string{"a", "Go", "func", "ÉCOLE", "日本", "x1", "\xff", "ｆｕｌｌ", "the", "MixedCase"}
	var b strings.Builder
	for b.Len() < 20*StreamPart {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteString(" .\n"[r.IntN(3):][:1])
	}
	long := []byte(b.String())
	for _, unit := range []Unit{Word, Char, Stopword} {
		for _, scheme := range []Scheme{Tok64, XXH64} {
			for _, k := range []int{1, 5} {
				opt := Options{Unit: unit, K: k, Scheme: scheme, Seed: 3, Stopwords: english, Norm: token.Normalization{Width: true}}
				s := New(opt)
				var buf []uint64
				for _, text := range [][]byte{long, []byte("one two"), nil, long[:3*StreamPart]} {
					want := New(opt).Append(nil, text)
					got, parts := streamed(t, s, buf, text)
					if !slices.Equal(got, want) {
						t.Fatalf("%s %s k=%d, %d bytes: %d hashes streamed, Append %d; first difference at %d", unit, scheme, k, len(text), len(got), len(want), firstDiff(got, want))
					}
					if unit != Stopword && scheme == Tok64 {
						for i, n := range parts {
							if n > StreamPart+token.MaxSpans || n < StreamPart && i < len(parts)-1 {
								t.Fatalf("%s k=%d: part %d of %d has %d hashes, want %d to %d", unit, k, i, len(parts), n, StreamPart, StreamPart+token.MaxSpans)
							}
						}
					}
				}
			}
		}
	}
}
