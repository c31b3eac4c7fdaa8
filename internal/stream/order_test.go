package stream

import (
	"strings"
	"testing"
)

// orderCheck runs HeaderOrder over files (name, content), cut into chunks
// of per lines, and returns its first error ("" when none).
func orderCheck(t *testing.T, per int, files ...string) string {
	t.Helper()
	o := HeaderOrder{Stage: "sketch"}
	for i := 0; i < len(files); i += 2 {
		lines := strings.SplitAfter(files[i+1], "\n")
		lines = lines[:len(lines)-1]
		for start := 0; start < len(lines); start += per {
			c := &Chunk{File: files[i], FirstLine: int64(start + 1), FirstOrdinal: 1,
				Data: []byte(strings.Join(lines[start:min(start+per, len(lines))], ""))}
			r := &Result{}
			c.Lines(r, false, func([]byte, int64) error { return nil })
			if err := o.Check(r); err != nil {
				return err.Error()
			}
		}
	}
	return ""
}

func TestHeaderOrder(t *testing.T) {
	const (
		hdr   = "#neardup stage=shingle k=5\n#neardup stage=sketch n=4\n"
		other = "#neardup stage=shingle k=5\n"
		recs  = "a\t1\tx\nb\t1\tx\n"
	)
	for _, tt := range []struct {
		name  string
		files []string
		want  string
	}{
		{"one file", []string{"a", hdr + recs}, ""},
		{"headerless", []string{"a", recs, "b", recs}, ""},
		{"headers in every file", []string{"a", hdr + recs, "b", hdr + recs}, ""},
		{"a repeat inside a file", []string{"a", hdr + recs + hdr + recs}, ""},
		{"another stage's header late", []string{"a", recs + other + recs}, ""},
		{"an empty file between", []string{"a", hdr + recs, "e", "", "b", hdr + recs}, ""},
		{"late in one file", []string{"a", recs + hdr + recs}, "a:4: a stage=sketch header after records without one (from a:1)"},
		{"late in the next file", []string{"a", recs, "b", hdr + recs}, "b:2: a stage=sketch header after records without one (from a:1)"},
		{"headerless after headered", []string{"a", hdr + recs, "b", recs}, "b:1: records without a stage=sketch header after a file with one (a:2)"},
		{"headered file with its header late", []string{"a", hdr + recs, "b", recs + hdr}, "b:1: records without a stage=sketch header after a file with one (a:2)"},
	} {
		for _, per := range []int{1, 2, 3, 100} {
			got := orderCheck(t, per, tt.files...)
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("%s, chunks of %d lines: %q, want %q", tt.name, per, got, tt.want)
			}
		}
	}
}
