package cli_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/neardup/neardup/internal/cli"
	"github.com/neardup/neardup/internal/testutil"
)

// emptyStdin makes standard input an empty file for the test, so that a
// stage given no file reads nothing.
func emptyStdin(t *testing.T) {
	t.Helper()
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = f
	t.Cleanup(func() {
		os.Stdin = saved
		f.Close()
	})
}

func stage(t *testing.T, name string) cli.Stage {
	t.Helper()
	for _, s := range cli.Stages() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no stage %q", name)
	return cli.Stage{}
}

// run runs a stage in-process with args (without the program name).
func run(t *testing.T, name string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return testutil.Command(t, func(args []string, stdout, stderr io.Writer) int {
		return cli.Run(stage(t, name), args, stdout, stderr)
	}, append([]string{name}, args...)...)
}

// examples returns the command lines of the section of text whose heading
// line is heading: the lines indented by three spaces after it.
func examples(text, heading string) []string {
	_, after, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		return nil
	}
	var lines []string
	for _, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "   ") {
			break
		}
		lines = append(lines, strings.TrimSpace(line))
	}
	return lines
}

// TestHelp checks what -h shows of each stage; TestHelpFitsAScreen how
// much.
func TestHelp(t *testing.T) {
	for _, s := range cli.Stages() {
		stdout, stderr, status := run(t, s.Name, "--help")
		if status != 0 || stderr != "" {
			t.Errorf("%s --help: status %d, stderr %q", s.Name, status, stderr)
		}
		var wants []string
		switch s.Name {
		case "index", "bandindex": // their subcommands have the options
			wants = append(wants, "USAGE:\n   "+s.Name+" COMMAND [options] "+s.Args, "COMMANDS:")
		case "keep": // it writes documents, which have no headers
			wants = append(wants, "USAGE:\n   keep [options] "+s.Args, "-o, --output FILE")
		case "docfreq": // its header carries the number of documents idf needs
			wants = append(wants, "USAGE:\n   docfreq [options] "+s.Args, "-o, --output FILE")
		default:
			wants = append(wants, "USAGE:\n   "+s.Name+" [options] "+s.Args, "-o, --output FILE", "--no-header")
		}
		for _, want := range wants {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s --help lacks %q", s.Name, want)
			}
		}
		ex := examples(stdout, "EXAMPLES:")
		if len(ex) == 0 {
			t.Errorf("%s --help has no EXAMPLES section", s.Name)
		}
		runs := false
		for _, line := range ex {
			for _, segment := range strings.Split(line, "|") {
				if f := strings.Fields(segment); len(f) > 0 && f[0] == s.Name {
					runs = true
				}
			}
		}
		if !runs {
			t.Errorf("%s: no example runs it: %q", s.Name, ex)
		}
	}
}

// TestHelpFitsAScreen checks that -h and --help of every stage and
// subcommand fit a screen of 50 lines, show an example that runs it and
// point to the man page, which has the manual.
func TestHelpFitsAScreen(t *testing.T) {
	for _, s := range cli.Stages() {
		commands := [][]string{{s.Name}}
		for _, c := range s.Commands {
			commands = append(commands, []string{s.Name, c.Name})
		}
		for _, cmd := range commands {
			for _, flag := range []string{"-h", "--help"} {
				stdout, stderr, status := run(t, s.Name, append(cmd[1:], flag)...)
				name := strings.Join(cmd, " ") + " " + flag
				if status != 0 || stderr != "" {
					t.Errorf("%s: status %d, stderr %q", name, status, stderr)
				}
				if n := strings.Count(stdout, "\n"); n > 50 {
					t.Errorf("%s: %d lines, want at most 50 (the manual goes to the man page)", name, n)
				}
				if !strings.Contains(stdout, "man "+s.Name) {
					t.Errorf("%s does not point to man %s", name, s.Name)
				}
				runs := false
				for _, line := range examples(stdout, "EXAMPLES:") {
					runs = runs || strings.HasPrefix(line, strings.Join(cmd, " ")+" ") || strings.Contains(line, "| "+strings.Join(cmd, " ")+" ")
				}
				if !runs {
					t.Errorf("%s shows no example that runs it:\n%s", name, stdout)
				}
			}
		}
	}
}

// shellWords splits a command at spaces, keeping single-quoted words whole.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted = !quoted
			inWord = true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// Every stage invocation in every example of the manuals is a valid
// command line: run in an empty directory (its files missing, so status 1
// is fine) with empty standard input, it is never a usage error.
func TestExamplesAreValid(t *testing.T) {
	emptyStdin(t)
	t.Chdir(t.TempDir())
	subst := regexp.MustCompile(`\$\([^)]*\)`)
	names := map[string]bool{}
	for _, s := range cli.Stages() {
		names[s.Name] = true
	}
	for _, s := range cli.Stages() {
		for _, line := range examples(s.Description, "EXAMPLES") {
			for _, segment := range strings.Split(line, "|") {
				segment, _, _ = strings.Cut(segment, ">")
				words := shellWords(subst.ReplaceAllString(segment, "missing-dir"))
				if len(words) == 0 || !names[words[0]] {
					continue
				}
				_, stderr, status := run(t, words[0], words[1:]...)
				if status == 2 || strings.Contains(stderr, "--help") {
					t.Errorf("%s example %q: %q gives status %d:\n%s", s.Name, line, strings.TrimSpace(segment), status, stderr)
				}
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	emptyStdin(t)
	tests := []struct {
		stage string
		args  []string
		want  string // in stderr
	}{
		{"shingle", []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{"sketch", []string{"-x"}, "flag provided but not defined: -x"},
		{"shingle", []string{"in.tsv", "-k", "5"}, "-k given after the file arguments: flags come first (shingle [options] FILE...)"},
		{"verify", []string{"--shingles", "s.tsv", "pairs.tsv", "--containment"}, "--containment given after the file arguments"},
		{"shingle", []string{"--unit", "bogus"}, `unknown unit "bogus": want char, word or stopword`},
		{"shingle", []string{"--hash", "md5"}, `unknown hash "md5": want tok64 or xxh64`},
		{"shingle", []string{"-k", "0"}, "-k 0: want at least 1"},
		{"shingle", []string{"-k", "x"}, `invalid value "x" for flag -k`},
		{"shingle", []string{"--format", "xml"}, `unknown --format "xml"`},
		{"shingle", []string{"--files", "--lines"}, "--files and --lines exclude each other"},
		{"shingle", []string{"--files", "--format", "jsonl"}, "--files and --format jsonl exclude each other"},
		{"shingle", []string{"--stopwords", "list.txt"}, "--stopwords is for --unit stopword"},
		{"sketch", []string{"--method", "bogus"}, "bogus"},
		{"sketch", []string{"-n", "0"}, "-n 0: want 1 to 65536"},
		{"band", []string{"-b", "3"}, "give both -b and -r, or neither"},
		{"band", []string{"-r", "3"}, "give both -b and -r, or neither"},
		{"band", []string{"-b", "-2", "-r", "-2"}, "-b and -r must be positive"},
		{"band", []string{"--threshold", "1.5"}, "--threshold 1.5: want a similarity between 0 and 1"},
		{"band", []string{"--fp-weight", "0", "--fn-weight", "0"}, "--fp-weight and --fn-weight must be non-negative and not both 0"},
		{"pairs", []string{"--memory", "lots"}, `bad size "lots"`},
		{"pairs", []string{"--max-bucket", "-1"}, "--max-bucket -1: want 0 (no cap) or more"},
		{"verify", nil, "give --shingles FILE (exact), --documents FILE (exact, shingled again) or --sketches FILE (estimate)"},
		{"verify", []string{"--shingles", "a", "--sketches", "b"}, "give --shingles FILE (exact), --documents FILE (exact, shingled again) or --sketches FILE (estimate)"},
		{"verify", []string{"--shingles", "a", "--threshold", "2"}, "--threshold 2: want a similarity between 0 and 1"},
	}
	for _, tt := range tests {
		stdout, stderr, status := run(t, tt.stage, tt.args...)
		if status != 2 || !strings.HasPrefix(stderr, tt.stage+": ") || !strings.Contains(stderr, tt.want) ||
			!strings.Contains(stderr, "Run '"+tt.stage+" --help' for usage.") || stdout != "" {
			t.Errorf("%s %q: status %d, stdout %q, stderr\n%s\nwant status 2 and %q", tt.stage, tt.args, status, stdout, stderr, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	stdout, _, status := run(t, "band", "--version")
	if status != 0 || stdout != "band version "+cli.Version+"\n" {
		t.Errorf("--version: status %d, %q", status, stdout)
	}
}

func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	docs := testutil.WriteFileIn(t, dir, "docs.tsv", "a\tthe quick brown fox\nb\tthe quick brown cat\n")
	bad := testutil.WriteFileIn(t, dir, "bad.tsv", "a\tfine\nno tab here\n")

	stdout, stderr, status := run(t, "shingle", "--unit", "word", "-k", "2", docs)
	if status != 0 || stderr != "" || !strings.HasPrefix(stdout, "#neardup stage=shingle unit=word k=2 ") || strings.Count(stdout, "\n") != 3 {
		t.Errorf("shingle: status %d, stderr %q, stdout\n%s", status, stderr, stdout)
	}
	_, stderr, status = run(t, "shingle", bad)
	if status != 2 || stderr != "shingle: "+bad+":2: want id TAB text, found no TAB\n" {
		t.Errorf("bad input: status %d, stderr %q", status, stderr)
	}
	stdout, stderr, status = run(t, "shingle", "--skip-bad", bad)
	if status != 0 || strings.Count(stdout, "\n") != 2 || !strings.Contains(stderr, "shingle: skipped 1 bad line(s)") {
		t.Errorf("--skip-bad: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	_, stderr, status = run(t, "sketch", filepath.Join(dir, "missing.tsv"))
	if status != 1 || !strings.Contains(stderr, "missing.tsv") {
		t.Errorf("missing input: status %d, stderr %q", status, stderr)
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	docs := testutil.WriteFileIn(t, dir, "docs.tsv", "a\tsome text\n")
	bad := testutil.WriteFileIn(t, dir, "bad.tsv", "no tab\n")
	out := filepath.Join(dir, "out.tsv")
	if stdout, stderr, status := run(t, "shingle", "-o", out, docs); status != 0 || stdout != "" || stderr != "" {
		t.Fatalf("-o: status %d, stdout %q, stderr %q", status, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(b), "#neardup stage=shingle") {
		t.Errorf("-o wrote %q, %v", b, err)
	}
	// A failed run leaves the old file alone and no temporary file behind.
	if _, _, status := run(t, "shingle", "-o", out, bad); status != 2 {
		t.Errorf("failed run with -o: status %d", status)
	}
	if b2, _ := os.ReadFile(out); !bytes.Equal(b2, b) {
		t.Errorf("a failed run changed the output file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("files left in the directory: %v", entries)
	}
}

// The output is the same for any number of workers, over an input of
// several chunks.
func TestJobsSameOutput(t *testing.T) {
	var b strings.Builder
	for i := range 30000 {
		b.WriteString("doc")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\tsome words of document number ")
		b.WriteString(strings.Repeat("word ", i%13))
		b.WriteString("and the end\n")
	}
	docs := testutil.WriteFileIn(t, t.TempDir(), "docs.tsv", b.String())
	var first string
	for _, jobs := range []string{"1", "2", "8"} {
		stdout, stderr, status := run(t, "shingle", "-j", jobs, "--unit", "word", "-k", "3", docs)
		if status != 0 {
			t.Fatalf("-j %s: status %d, %s", jobs, status, stderr)
		}
		if first == "" {
			first = stdout
			continue
		}
		if stdout != first {
			t.Errorf("-j %s output differs from -j 1", jobs)
		}
	}
}

// The man pages in man/ are those the flag definitions give (make man).
func TestManPagesUpToDate(t *testing.T) {
	for _, s := range cli.Stages() {
		page, err := cli.Man(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		file := filepath.Join("..", "..", "man", s.Name+".1")
		have, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%v (run make man)", err)
			continue
		}
		if string(have) != page {
			t.Errorf("%s is out of date: run make man", file)
		}
		sections := []string{".TH " + s.Name + " 1", ".SH EXAMPLES", ".SH EXIT STATUS", ".SH OPTIONS"}
		if len(s.Commands) > 0 {
			sections[3] = ".SH COMMANDS"
		}
		for _, want := range sections {
			if !strings.Contains(page, want) {
				t.Errorf("%s man page lacks %q", s.Name, want)
			}
		}
	}
}

// -o naming a FIFO (or a device such as /dev/null) writes into it: renaming
// a temporary file over it, as -o does for a regular file, would replace it
// (it once replaced /dev/null with a regular file).
func TestOutputToFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	in := filepath.Join(dir, "docs.tsv")
	os.WriteFile(in, []byte("a\tthe quick brown fox\n"), 0o644)
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	if _, stderr, status := run(t, "shingle", "-o", fifo, in); status != 0 {
		t.Fatalf("shingle -o FIFO: status %d: %s", status, stderr)
	}
	if b := <-got; !bytes.Contains(b, []byte("a\t")) {
		t.Errorf("the FIFO's reader got %q", b)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("after shingle -o FIFO the FIFO is %v (%v)", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want the FIFO and the input: a temporary file was left", len(entries))
	}
}
