package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestClusterTopicsOfManPages clusters the toolkit's man pages, each with a
// near-copy, as the live stream of cluster(1) does, and names the clusters'
// topics against the pages' own document frequencies: the cluster page is
// about leaders, the seen page about its Bloom filter, and no topic holds a
// word of every page.
func TestClusterTopicsOfManPages(t *testing.T) {
	pages, err := filepath.Glob("../../man/*.1")
	if err != nil || len(pages) < 5 {
		t.Fatalf("man pages: %v %v", pages, err)
	}
	dir := t.TempDir()
	var corpus strings.Builder
	// The words of each document, as the tokenizer splits them.
	texts := map[string]map[string]bool{}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".1")
		lines := strings.Split(string(data), "\n")
		half := len(lines) / 2
		copyText := strings.Join(append(lines[:half:half], lines[half+3:]...), "\n")
		for _, d := range [][2]string{{name, string(data)}, {name + "-copy", copyText}} {
			line, _ := json.Marshal(map[string]string{"id": d[0], "text": d[1]})
			corpus.Write(line)
			corpus.WriteByte('\n')
			texts[d[0]] = map[string]bool{}
			for _, w := range strings.FieldsFunc(strings.ToLower(d[1]), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				texts[d[0]][w] = true
			}
		}
	}
	docs := filepath.Join(dir, "man.jsonl")
	os.WriteFile(docs, []byte(corpus.String()), 0o644)
	words := filepath.Join(dir, "words.tsv")
	df := filepath.Join(dir, "df.tsv")
	fps := filepath.Join(dir, "fp.tsv")
	topics := filepath.Join(dir, "topics.tsv")
	for _, step := range []struct {
		stage Stage
		args  []string
	}{
		{Shingle(), []string{"--format", "jsonl", "--unit", "word", "-k", "1", "--counts", "-o", words, docs}},
		{DocFreq(), []string{"-o", df, words}},
		{Sketch(), []string{"--method", "simhash", "-o", fps, words}},
		{Cluster(), []string{"--method", "leader", "--update-centre", "--topics", "6", "--df", df, "--documents", docs, "--topics-out", topics, fps}},
	} {
		if code, _, stderr := runStage(t, step.stage, step.args...); code != 0 {
			t.Fatalf("%s: status %d: %s", step.stage.Name, code, stderr)
		}
	}
	data, err := os.ReadFile(topics)
	if err != nil {
		t.Fatal(err)
	}
	last := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "#neardup ") {
			continue
		}
		name, ws, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("topic line %q: want cluster TAB words", line)
		}
		last[name] = strings.Fields(ws)
	}
	for name, want := range map[string]string{"cluster": "leader", "seen": "bloom"} {
		if !strings.Contains(" "+strings.Join(last[name], " ")+" ", " "+want+" ") {
			t.Errorf("the topic of %s is %q: no %q", name, last[name], want)
		}
	}
	for name, ws := range last {
		for _, w := range ws {
			every := true
			for _, text := range texts {
				every = every && text[w]
			}
			if every {
				t.Errorf("the topic of %s, %q, holds %q, a word of every page", name, ws, w)
			}
		}
	}
}
