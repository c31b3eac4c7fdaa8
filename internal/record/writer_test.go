package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

var (
	ownHeader   = record.NewHeader("sketch", "method", "minhash", "n", "4")
	shingleK9   = record.NewHeader("shingle", "unit", "char", "k", "9")
	shingleK5   = record.NewHeader("shingle", "unit", "char", "k", "5")
	secondaryHd = record.NewHeader("band", "b", "2", "r", "2")
	posA1       = record.Pos{File: "a.tsv", Line: 1}
	posB1       = record.Pos{File: "b.tsv", Line: 1}
)

func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func TestWriterEmptyInput(t *testing.T) {
	var out bytes.Buffer
	w := record.NewWriter(&out, false, false, ownHeader)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("empty input gave %q, want no output", out.String())
	}
}

func TestWriterTouchWritesHeaders(t *testing.T) {
	var out bytes.Buffer
	w := record.NewWriter(&out, false, false, ownHeader)
	w.Touch()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if want := lines(ownHeader.String()); out.String() != want {
		t.Errorf("input without records gave %q, want %q", out.String(), want)
	}
}

func TestWriterHeadersOnceBeforeRecords(t *testing.T) {
	var out bytes.Buffer
	w := record.NewWriter(&out, false, false, ownHeader)
	must(t, w.Header(shingleK9, posA1))
	must(t, w.Header(shingleK9, posB1)) // another input of the same run
	mustWrite(t, w, "d1\t1\tx\n")
	mustWrite(t, w, "d2\t1\ty\n")
	must(t, w.Header(shingleK9, record.Pos{File: "c.tsv", Line: 1}))
	mustWrite(t, w, "d3\t1\tz\n")
	must(t, w.Close())
	want := lines(shingleK9.String(), ownHeader.String(), "d1\t1\tx", "d2\t1\ty", "d3\t1\tz")
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
	if got := w.Upstream().All(); len(got) != 1 || got[0].String() != shingleK9.String() {
		t.Errorf("Upstream() = %v", got)
	}
}

func TestWriterNewHeaderAfterRecords(t *testing.T) {
	// A header of another stage met after some records (a concatenation
	// of outputs) is written where it is met.
	var out bytes.Buffer
	w := record.NewWriter(&out, false, false, ownHeader)
	mustWrite(t, w, "d1\n")
	must(t, w.Header(secondaryHd, posB1))
	must(t, w.Close())
	if want := lines(ownHeader.String(), "d1", secondaryHd.String()); out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

func TestWriterConflicts(t *testing.T) {
	var out bytes.Buffer
	w := record.NewWriter(&out, false, false, ownHeader)
	must(t, w.Header(shingleK9, posA1))
	err := w.Header(shingleK5, record.Pos{File: "b.tsv", Line: 4})
	if err == nil || !strings.HasPrefix(err.Error(), "b.tsv:4: shingle records made with k=5") || !strings.Contains(err.Error(), "k=9 (a.tsv:1)") {
		t.Errorf("conflicting upstream header: %v", err)
	}
	// An input that went through this stage already.
	err = w.Header(record.NewHeader("sketch", "method", "minhash", "n", "4"), record.Pos{File: "s.tsv", Line: 2})
	if err == nil || !strings.HasPrefix(err.Error(), "s.tsv:2: input already went through sketch") {
		t.Errorf("header of the writer's own stage: %v", err)
	}
}

func TestWriterSecondary(t *testing.T) {
	t.Run("main input empty", func(t *testing.T) {
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false, ownHeader)
		must(t, w.Secondary(secondaryHd, posB1))
		must(t, w.Close())
		if out.Len() != 0 {
			t.Errorf("empty main input gave %q", out.String())
		}
	})
	t.Run("written with own", func(t *testing.T) {
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false, ownHeader)
		must(t, w.Secondary(secondaryHd, posB1))
		must(t, w.Header(shingleK9, posA1))
		mustWrite(t, w, "p\n")
		must(t, w.Close())
		want := lines(shingleK9.String(), secondaryHd.String(), ownHeader.String(), "p")
		if out.String() != want {
			t.Errorf("output\n%s\nwant\n%s", out.String(), want)
		}
	})
	t.Run("main input has it too", func(t *testing.T) {
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false, ownHeader)
		must(t, w.Secondary(shingleK9, posB1))
		must(t, w.Secondary(secondaryHd, posB1))
		must(t, w.Header(shingleK9, posA1))
		must(t, w.Header(shingleK9, posA1))
		mustWrite(t, w, "p\n")
		must(t, w.Close())
		want := lines(shingleK9.String(), secondaryHd.String(), ownHeader.String(), "p")
		if out.String() != want {
			t.Errorf("output\n%s\nwant\n%s", out.String(), want)
		}
	})
	t.Run("main input first", func(t *testing.T) {
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false, ownHeader)
		must(t, w.Header(shingleK9, posA1))
		must(t, w.Secondary(shingleK9, posB1))
		w.Touch()
		must(t, w.Close())
		if want := lines(shingleK9.String(), ownHeader.String()); out.String() != want {
			t.Errorf("output %q, want %q", out.String(), want)
		}
	})
	t.Run("conflict", func(t *testing.T) {
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false, ownHeader)
		must(t, w.Secondary(shingleK9, posB1))
		err := w.Header(shingleK5, record.Pos{File: "main.tsv", Line: 1})
		if err == nil || !strings.HasPrefix(err.Error(), "main.tsv:1: ") || !strings.Contains(err.Error(), "(b.tsv:1)") {
			t.Errorf("main header conflicting with a secondary one: %v", err)
		}
	})
	t.Run("set own late", func(t *testing.T) {
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false)
		must(t, w.Secondary(secondaryHd, posB1))
		w.SetOwn(ownHeader)
		mustWrite(t, w, "p\n")
		must(t, w.Close())
		if want := lines(secondaryHd.String(), ownHeader.String(), "p"); out.String() != want {
			t.Errorf("output %q, want %q", out.String(), want)
		}
	})
}

func TestWriterNoHeader(t *testing.T) {
	var out bytes.Buffer
	w := record.NewWriter(&out, true, false, ownHeader)
	must(t, w.Secondary(secondaryHd, posB1))
	must(t, w.Header(shingleK9, posA1))
	mustWrite(t, w, "d1\n")
	must(t, w.Header(record.NewHeader("other"), posA1))
	mustWrite(t, w, "d2\n")
	must(t, w.Close())
	if want := lines("d1", "d2"); out.String() != want {
		t.Errorf("--no-header output %q, want %q", out.String(), want)
	}
	// Conflicts are still found.
	if err := w.Header(shingleK5, posB1); err == nil {
		t.Errorf("--no-header hides a header conflict")
	}
}

// recorder notes each write that reaches it.
type recorder struct{ writes []string }

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

func TestWriterBuffering(t *testing.T) {
	var rec recorder
	w := record.NewWriter(&rec, false, false, ownHeader)
	mustWrite(t, w, "a\n")
	mustWrite(t, w, "b\n")
	if len(rec.writes) != 0 {
		t.Errorf("block-buffered writer wrote before Flush: %q", rec.writes)
	}
	must(t, w.Flush())
	if want := []string{lines(ownHeader.String(), "a", "b")}; len(rec.writes) != 1 || rec.writes[0] != want[0] {
		t.Errorf("after Flush: %q, want %q", rec.writes, want)
	}

	var live recorder
	w = record.NewWriter(&live, true, true)
	mustWrite(t, w, "a\n")
	mustWrite(t, w, "b\n")
	if want := []string{"a\n", "b\n"}; len(live.writes) != 2 || live.writes[0] != want[0] || live.writes[1] != want[1] {
		t.Errorf("line-buffered writes %q, want %q", live.writes, want)
	}
}

type failWriter struct{ err error }

func (f failWriter) Write(p []byte) (int, error) { return 0, f.err }

func TestWriterError(t *testing.T) {
	broken := errors.New("disk full")
	w := record.NewWriter(failWriter{broken}, false, false, ownHeader)
	mustWrite(t, w, "a\n") // buffered
	if err := w.Close(); !errors.Is(err, broken) {
		t.Errorf("Close() = %v, want %v", err, broken)
	}
	if _, err := w.Write([]byte("b\n")); !errors.Is(err, broken) {
		t.Errorf("Write after a failed flush = %v, want %v", err, broken)
	}

	w = record.NewWriter(failWriter{broken}, false, true, ownHeader)
	if _, err := w.Write([]byte("a\n")); !errors.Is(err, broken) {
		t.Errorf("line-buffered Write = %v, want %v", err, broken)
	}
	if err := w.Flush(); !errors.Is(err, broken) {
		t.Errorf("Flush after a failed write = %v, want %v", err, broken)
	}
}

func TestWriterLargeOutput(t *testing.T) {
	var out bytes.Buffer
	w := record.NewWriter(&out, false, false, ownHeader)
	rec := strings.Repeat("x", 999) + "\n"
	n := 3 * record.WriterBufferSize / len(rec)
	for range n {
		mustWrite(t, w, rec)
	}
	must(t, w.Close())
	if want := len(ownHeader.String()) + 1 + n*len(rec); out.Len() != want {
		t.Errorf("wrote %d bytes, want %d", out.Len(), want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, w *record.Writer, s string) {
	t.Helper()
	n, err := w.Write([]byte(s))
	if err != nil || n != len(s) {
		t.Fatalf("Write(%q) = %d, %v", s, n, err)
	}
}
