package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runStage(t *testing.T, s Stage, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(s, append([]string{s.Name}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestClusterAndKeepStages(t *testing.T) {
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.tsv")
	os.WriteFile(pairs, []byte("b\tc\t0.9\na\tb\t0.95\nx\ty\t0.5\n"), 0o644)
	docs := filepath.Join(dir, "docs.tsv")
	os.WriteFile(docs, []byte("a\tA\nb\tB\nc\tC\nx\tX\ny\tY\nq\tQ\n"), 0o644)
	clusters := filepath.Join(dir, "clusters.tsv")

	code, out, stderr := runStage(t, Cluster(), "--no-header", "-o", clusters, "--stats", pairs)
	if code != 0 || out != "" || !strings.Contains(stderr, "5 documents in 2 clusters") {
		t.Fatalf("cluster: %d %q %q", code, out, stderr)
	}
	got, _ := os.ReadFile(clusters)
	if string(got) != "a\ta\na\tb\na\tc\nx\tx\nx\ty\n" {
		t.Fatalf("clusters: %q", got)
	}
	code, out, _ = runStage(t, Keep(), "--clusters", clusters, docs)
	if code != 0 || out != "a\tA\nx\tX\nq\tQ\n" {
		t.Fatalf("keep: %d %q", code, out)
	}
	code, out, _ = runStage(t, Keep(), "--clusters", clusters, "--drop", "--prefer", "id", docs)
	if code != 0 || out != "b\tB\nc\tC\ny\tY\n" {
		t.Fatalf("keep --drop: %d %q", code, out)
	}

	for _, c := range []struct {
		stage Stage
		args  []string
		msg   string
	}{
		{Cluster(), []string{"--method", "nope"}, "unknown --method"},
		{Cluster(), []string{"--singletons", pairs}, "--singletons needs --ids"},
		{Cluster(), []string{"--method", "leader", "--report", "r", pairs}, "are for --method components"},
		{Cluster(), []string{"--method", "greedy", "--state", "s", pairs}, "--state is for --method leader"},
		{Cluster(), []string{"--method", "leader", "--topics", "2", "--df", pairs, "--documents", docs, "--topics-out", clusters + ".topics", "-o", clusters + ".topics", pairs}, "is the file of --topics-out"},
		{Cluster(), []string{"--min-similarity-to-representative", "2", pairs}, "want a similarity"},
		{Cluster(), []string{"--method", "leader", "-b", "3", pairs}, "both -b and -r"},
		{Cluster(), []string{pairs, "--stats"}, "flags come first"},
		{Keep(), []string{docs}, "give --pairs FILE (scored pairs from verify) or --clusters FILE"},
		{Keep(), []string{"--clusters", clusters, "--prefer", "best", docs}, "--prefer \"best\""},
		{Keep(), []string{"--clusters", clusters, "--pairs", clusters, docs}, "--clusters and --pairs exclude each other"},
		{Keep(), []string{"--pairs", clusters, "--prefer", "longest", docs}, "with --pairs the earliest document of a chain stays"},
		{Keep(), []string{"--clusters", clusters, "--files", "--lines", docs}, "exclude each other"},
	} {
		code, _, stderr := runStage(t, c.stage, c.args...)
		if code != ExitBadInput || !strings.Contains(stderr, c.msg) {
			t.Errorf("%s %v: status %d, stderr %q; want 2 and %q", c.stage.Name, c.args, code, stderr, c.msg)
		}
	}
	// Bad input: file:line and status 2.
	bad := filepath.Join(dir, "bad.tsv")
	os.WriteFile(bad, []byte("a\tb\nnotab\n"), 0o644)
	if code, _, stderr := runStage(t, Cluster(), bad); code != ExitBadInput || !strings.Contains(stderr, "bad.tsv:2: ") {
		t.Errorf("bad pairs: %d %q", code, stderr)
	}
	if code, _, stderr := runStage(t, Keep(), "--clusters", bad, docs); code != ExitBadInput || !strings.Contains(stderr, "bad.tsv:2: ") {
		t.Errorf("bad cluster file: %d %q", code, stderr)
	}
}

func TestClusterAndKeepManPages(t *testing.T) {
	for _, s := range []Stage{Cluster(), Keep()} {
		page, err := Man(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"EXIT STATUS", "Memory", "EXAMPLES"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s man page lacks %q", s.Name, want)
			}
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "man", s.Name+".1"))
		if err != nil || string(want) != page {
			t.Errorf("man/%s.1 is not current: run make man", s.Name)
		}
	}
}
