package parts

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/testutil"
)

// corpus returns a TSV corpus of n documents of a few paragraphs, some
// shared between documents, with escapes in the texts.
func corpus(n int) (string, map[string]string) {
	var b strings.Builder
	texts := map[string]string{}
	for i := range n {
		var t strings.Builder
		fmt.Fprintf(&t, "Document %d starts here.\nIts second line\\with a backslash.\n\n", i)
		if i%3 == 0 {
			t.WriteString("Copyright the authors. All rights reserved.\n\n\n")
		}
		fmt.Fprintf(&t, "  \t\nLast\tparagraph of %d, ünïcode 漢字", i)
		id := fmt.Sprintf("doc-%d", i)
		texts[id] = t.String()
		b.WriteString(id + "\t")
		b.Write(record.Escape(nil, []byte(t.String())))
		b.WriteByte('\n')
	}
	return b.String(), texts
}

// Every part line names a range of its document whose text it holds, and
// the output is the same for any number of workers.
func TestRunParts(t *testing.T) {
	docs, texts := corpus(30000) // several chunks of 1 MiB
	in := testutil.WriteFile(t, "docs.tsv", docs)
	for _, opt := range []Options{
		{By: ByParagraph},
		{By: ByWindow, Tokens: 4, Stride: 2},
		{By: ByParagraph, MinTokens: 6},
	} {
		var first string
		for _, jobs := range []int{1, 4} {
			opt.Jobs = jobs
			stdout, stderr, err := testutil.Run(t, Run, opt, in)
			if err != nil {
				t.Fatalf("%+v: %v\n%s", opt, err, stderr)
			}
			if jobs == 1 {
				first = stdout
				continue
			}
			if stdout != first {
				t.Fatalf("%+v: -j %d output differs from -j 1", opt, jobs)
			}
		}
		lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
		if !strings.HasPrefix(lines[0], "#neardup stage=parts by="+opt.By) {
			t.Fatalf("header %q", lines[0])
		}
		for _, line := range lines[1:] {
			id, text, _ := strings.Cut(line, "\t")
			doc, start, end, err := record.ParsePartID([]byte(id))
			if err != nil {
				t.Fatal(err)
			}
			whole := texts[string(doc)]
			if got := string(record.Unescape(nil, []byte(text))); end > len(whole) || got != whole[start:end] {
				t.Fatalf("%+v: %s holds %q, the document's bytes are %q", opt, id, got, whole[start:min(end, len(whole))])
			}
		}
		if opt.MinTokens > 0 && bytes.Contains([]byte(first), []byte("Copyright")) != true {
			t.Errorf("--min-tokens 6 left out the 6-token paragraph")
		}
	}
}

func TestRunCounts(t *testing.T) {
	in := testutil.WriteFile(t, "docs.tsv", "a\tone\\n\\ntwo words\\n\\nthree little words\nb\t \\n\\t\\n\n")
	stdout, stderr, err := testutil.Run(t, Run, Options{By: ByParagraph, MinBytes: 4, MinTokens: 3}, in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a#16-34\tthree little words\n"; !strings.HasSuffix(stdout, "\n"+want) {
		t.Errorf("stdout %q, want it to end %q", stdout, want)
	}
	for _, want := range []string{
		"parts: 2 part(s) under --min-bytes 4 or --min-tokens 3 left out (14 bytes)\n",
		"parts: 1 of 2 document(s) had no part (no text but white space, or no token)\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q lacks %q", stderr, want)
		}
	}
	if _, _, err := testutil.Run(t, Run, Options{By: ByWindow}, in); err == nil {
		t.Error("--by window without --tokens: no error")
	}
}
