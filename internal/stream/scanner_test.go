package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func TestScanner(t *testing.T) {
	files := []file{
		{"a", "#neardup stage=band b=2\r\nk1\tx\r\nk1\ty\n\n"},
		{"b", ""},
		{"c", "#neardup stage=band b=2\nk2\tz"},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			sc := NewScanner(testLines(files, rd.wrap))
			var got []string
			sc.OnHeader = func(h record.Header, pos record.Pos) error {
				got = append(got, fmt.Sprintf("%s %s", pos, h))
				return nil
			}
			for sc.Scan() {
				got = append(got, fmt.Sprintf("%s %q", sc.Pos(), sc.Line()))
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if err := sc.Close(); err != nil {
				t.Fatal(err)
			}
			want := []string{
				"a:1 #neardup stage=band b=2",
				`a:2 "k1\tx"`,
				`a:3 "k1\ty"`,
				`a:4 ""`,
				"c:1 #neardup stage=band b=2",
				`c:2 "k2\tz"`,
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("scanned\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestScannerErrors(t *testing.T) {
	sc := NewScanner(testLines([]file{{"a", "x\n#neardup k=1\ny\n"}}, func(r io.Reader) io.Reader { return r }))
	n := 0
	for sc.Scan() {
		n++
	}
	if err := sc.Err(); n != 1 || err == nil || err.Error() != "a:2: header has no stage=" {
		t.Errorf("bad header: %d lines, error %v", n, err)
	}
	sc.Close()

	refused := errors.New("refused")
	sc = NewScanner(testLines([]file{{"a", "x\n#neardup stage=a\ny\n"}}, func(r io.Reader) io.Reader { return r }))
	sc.OnHeader = func(record.Header, record.Pos) error { return refused }
	for sc.Scan() {
	}
	if sc.Err() != refused || sc.Scan() {
		t.Errorf("OnHeader error: Err %v", sc.Err())
	}
	sc.Close()

	src := testLines([]file{{"a", "x\n"}}, func(r io.Reader) io.Reader { return r })
	src.names = append(src.names, "nothere")
	sc = NewScanner(src)
	for sc.Scan() {
	}
	if err := sc.Err(); err == nil || !strings.Contains(err.Error(), "nothere") {
		t.Errorf("open error: %v", err)
	}
	sc.Close()
}

func TestOutput(t *testing.T) {
	var out, stderr bytes.Buffer
	own := record.NewHeader("pairs")
	var checked []string
	o := &Output{
		Stage:  "pairs",
		W:      record.NewWriter(&out, false, false, own),
		Stderr: &stderr,
		CheckHeader: func(h record.Header, pos record.Pos) error {
			checked = append(checked, pos.String())
			if h.Stage == "sketch" {
				return record.Errorf(pos, "pairs reads band keys, not sketches")
			}
			return nil
		},
	}
	band := record.NewHeader("band", "b", "2")
	r := &Result{
		Out:      []byte("a\tb\n"),
		Headers:  []HeaderAt{{band, record.Pos{File: "f", Line: 1}}},
		Records:  3,
		Skipped:  []*record.Error{record.Errorf(record.Pos{File: "f", Line: 2}, "bad")},
		NSkipped: 1,
	}
	if err := o.Sink(r); err != nil {
		t.Fatal(err)
	}
	if o.Records() != 3 {
		t.Errorf("Records() = %d, want 3", o.Records())
	}
	o.Count(2)
	if o.Records() != 5 {
		t.Errorf("Records() after Count(2) = %d, want 5", o.Records())
	}
	stop := errors.New("stop")
	if err := o.Sink(&Result{Err: stop}); err != stop {
		t.Errorf("Sink of a result with Err = %v, want it back", err)
	}
	bad := o.Sink(&Result{Headers: []HeaderAt{{record.NewHeader("sketch"), record.Pos{File: "g", Line: 9}}}})
	if bad == nil || bad.Error() != "g:9: pairs reads band keys, not sketches" {
		t.Errorf("CheckHeader error = %v", bad)
	}
	if strings.Join(checked, " ") != "f:1 g:9" {
		t.Errorf("CheckHeader saw %q", checked)
	}

	le := o.Bad(record.Bad("no TAB"), record.Pos{File: "f", Line: 7}, false)
	if le == nil || le.Error() != "f:7: no TAB" {
		t.Errorf("Bad without skip-bad = %v", le)
	}
	if err := o.Bad(record.Bad("no TAB"), record.Pos{File: "f", Line: 8}, true); err != nil {
		t.Errorf("Bad under skip-bad = %v, want nil", err)
	}
	if err := o.Bad(stop, record.Pos{File: "f", Line: 9}, true); err != stop {
		t.Errorf("Bad of another error = %v, want it back", err)
	}
	if err := o.Finish(); err != nil {
		t.Fatal(err)
	}
	if want := "#neardup stage=band b=2\n#neardup stage=pairs\na\tb\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if want := "pairs: skipped f:2: bad\npairs: skipped f:8: no TAB\npairs: skipped 2 bad line(s)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

func TestOutputReportsTenSkipped(t *testing.T) {
	var stderr bytes.Buffer
	o := &Output{Stage: "s", W: record.NewWriter(&bytes.Buffer{}, false, false), Stderr: &stderr}
	for i := range 15 {
		o.Bad(record.Bad("bad"), record.Pos{File: "f", Line: int64(i + 1)}, true)
	}
	o.Finish()
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 11 || lines[9] != "s: skipped f:10: bad" || lines[10] != "s: skipped 15 bad line(s)" {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

func TestOutputEmpty(t *testing.T) {
	var out bytes.Buffer
	o := &Output{Stage: "s", W: record.NewWriter(&out, false, false, record.NewHeader("s"))}
	if err := o.Finish(); err != nil || out.Len() != 0 {
		t.Errorf("no input: %q, %v", out.String(), err)
	}
	// A result without records still counts as input seen.
	o = &Output{Stage: "s", W: record.NewWriter(&out, false, false, record.NewHeader("s"))}
	o.Sink(&Result{})
	if err := o.Finish(); err != nil || out.String() != "#neardup stage=s\n" {
		t.Errorf("input without records: %q, %v", out.String(), err)
	}
}
