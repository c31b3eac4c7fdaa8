package main

import (
	"bytes"
	"strings"
	"testing"
)

// The pairs of a tiny corpus: two copies that differ only in case,
// punctuation, spacing and width (the same words to neardup), a third
// copy under an escaped id, and documents without words or unrelated.
func TestRunTinyCorpus(t *testing.T) {
	corpus := "b\tThe quick brown fox jumps over the lazy dog, again and again.\n" +
		"a\tthe QUICK brown\\tfox\\njumps over the ｌａｚｙ dog again and again\n" +
		"x\\ty\tthe quick brown fox jumps over the lazy dog again and again\n" +
		"c\tsomething else entirely, with many words to count and no more\n" +
		"d\t!!\n" +
		"e\t\n"
	var out, errs bytes.Buffer
	if status := run(nil, strings.NewReader(corpus), &out, &errs); status != 0 {
		t.Fatalf("status %d: %s", status, errs.String())
	}
	lines := strings.Split(out.String(), "\n")
	if !strings.HasPrefix(lines[0], "#peer-minhash-lsh ") || !strings.Contains(lines[0], "unit=word k=5 n=128 threshold=0.8") {
		t.Errorf("header %q", lines[0])
	}
	want := "a\tb\na\tx\\ty\nb\tx\\ty\n"
	if got := strings.Join(lines[1:], "\n"); got != want {
		t.Errorf("pairs\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(errs.String(), "2 document(s) without words left out") {
		t.Errorf("standard error %q does not count the documents without words", errs.String())
	}
}

func TestRunBadUsage(t *testing.T) {
	for _, args := range [][]string{{"-k", "0"}, {"-n", "0"}, {"-threshold", "1.5"}, {"a", "b"}} {
		var out, errs bytes.Buffer
		if status := run(args, strings.NewReader(""), &out, &errs); status != 2 {
			t.Errorf("%q: status %d, want 2 (%s)", args, status, errs.String())
		}
	}
}
