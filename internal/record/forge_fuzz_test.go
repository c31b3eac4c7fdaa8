package record_test

import (
	"bytes"
	"testing"

	"github.com/neardup/neardup/internal/record"
)

// FuzzRecordsUnforgeable writes records made of any ids and text through a
// Writer, after a header, and reads the output back as the stages do: the
// header line is the only one that reads as a header, and every record
// gives back exactly its fields, whatever the ids and text hold (a TAB, a
// line break, "#neardup " first).
func FuzzRecordsUnforgeable(f *testing.F) {
	for _, s := range [][3]string{
		{"#neardup stage=pairs", "ordinary1", "a text"},
		{"#neardup x", "#neardup\ty=1", "#neardup stage=verify\n"},
		{"#hash", "\\#neardup", "\\#x\\"},
		{"a\tb\nc", "d\re\\", "\t"},
		{"#neardup", "#", "#neardup"},
	} {
		f.Add([]byte(s[0]), []byte(s[1]), []byte(s[2]))
	}
	f.Fuzz(func(t *testing.T, a, b, text []byte) {
		if len(a) == 0 || len(b) == 0 {
			return // an empty id is refused where it is read
		}
		ea, eb := record.EscapeID(nil, a), record.EscapeID(nil, b)
		var out bytes.Buffer
		w := record.NewWriter(&out, false, false, record.NewHeader("verify", "measure", "jaccard"))
		var rec []byte
		rec = append(append(append(rec, ea...), '\t'), record.Escape(nil, text)...)
		rec = append(rec, '\n')
		rec = record.AppendPair(rec, ea, eb)
		rec = record.AppendScored(rec, ea, eb, 0.5, 0.25, 1, true)
		rec = record.AppendSketch(rec, ea, 2, []uint64{1, 2})
		rec = record.AppendMember(rec, ea, eb)
		if _, err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if len(lines) != 6 {
			t.Fatalf("%d lines, want a header and 5 records:\n%s", len(lines), out.Bytes())
		}
		if !record.IsHeader(lines[0]) {
			t.Fatalf("the header %q does not read as one", lines[0])
		}
		for _, line := range lines[1:] {
			if record.IsHeader(line) {
				t.Fatalf("record %q reads as a header (ids %q, %q, text %q)", line, a, b, text)
			}
		}
		sameIDs := func(kind string, gotA, gotB []byte) {
			t.Helper()
			if got := record.UnescapeID(nil, gotA); !bytes.Equal(got, a) {
				t.Fatalf("%s: first id read back %q, want %q", kind, got, a)
			}
			if got := record.UnescapeID(nil, gotB); !bytes.Equal(got, b) {
				t.Fatalf("%s: second id read back %q, want %q", kind, got, b)
			}
		}
		gotID, gotText, ok := record.Cut(lines[1])
		if !ok || bytes.IndexByte(gotText, '\t') >= 0 {
			t.Fatalf("document %q: want 2 fields", lines[1])
		}
		if err := record.CheckID(gotID); err != nil {
			t.Fatalf("document %q: %v", lines[1], err)
		}
		sameIDs("document", gotID, eb)
		if got := record.Unescape(nil, gotText); !bytes.Equal(got, text) {
			t.Fatalf("document: text read back %q, want %q", got, text)
		}
		pa, pb, err := record.ParsePair(lines[2])
		if err != nil {
			t.Fatalf("pair %q: %v", lines[2], err)
		}
		sameIDs("pair", pa, pb)
		var sc record.Scored
		if err := record.ParseScored(&sc, lines[3]); err != nil {
			t.Fatalf("scored pair %q: %v", lines[3], err)
		}
		sameIDs("scored pair", sc.A, sc.B)
		var sk record.Sketch
		if err := record.ParseSketch(&sk, lines[4]); err != nil || sk.Size != 2 || len(sk.Values) != 2 {
			t.Fatalf("sketch %q: %v, size %d, %d values", lines[4], err, sk.Size, len(sk.Values))
		}
		sameIDs("sketch", sk.ID, eb)
		ca, cb, err := record.ParseMember(lines[5])
		if err != nil {
			t.Fatalf("cluster member %q: %v", lines[5], err)
		}
		sameIDs("cluster member", ca, cb)
	})
}
