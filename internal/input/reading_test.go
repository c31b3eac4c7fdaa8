package input

import (
	"testing"

	"github.com/neardup/neardup/internal/record"
)

func TestReadingHeaderRoundTrip(t *testing.T) {
	for _, r := range []Reading{
		DefaultReading(),
		{Format: FormatJSONL, IDField: "url", TextField: "body"},
		{Format: FormatTSV, IDField: "id", TextField: "text", Number: true, NumberFrom: 7},
		{Format: FormatFiles, IDField: "id", TextField: "text"},
		{Format: FormatLines, IDField: "id", TextField: "text", Number: true},
	} {
		h := record.NewHeader("shingle", "unit", "char")
		h.Params = append(h.Params, r.Params()...)
		got, ok, err := ReadingFromHeader(h)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", h, ok, err)
		}
		if got != r {
			t.Errorf("%s: read back %+v, want %+v", h, got, r)
		}
	}
	r, ok, err := ReadingFromHeader(record.NewHeader("shingle", "unit", "char", "ids", "number", "from", "5"))
	if !ok || err != nil || !r.Number || r.NumberFrom != 5 || r.Format != FormatAuto {
		t.Errorf("ids=number without format=: %+v %v %v", r, ok, err)
	}
	if _, ok, err := ReadingFromHeader(record.NewHeader("shingle", "unit", "char")); ok || err != nil {
		t.Errorf("an old header: ok %v err %v, want neither", ok, err)
	}
}

func TestResolve(t *testing.T) {
	h := record.NewHeader("shingle", "format", "auto", "id-field", "url", "text-field", "text", "ids", "number", "from", "5")
	pos := record.Pos{File: "clusters.tsv", Line: 1}
	def := ReadingFlags{Reading: DefaultReading()}
	r, err := def.Resolve(h, pos, true)
	if err != nil || r.IDField != "url" || !r.Number || r.NumberFrom != 5 || !r.IDRequired {
		t.Fatalf("defaults under the header: %+v %v", r, err)
	}
	bad := def
	bad.IDField, bad.IDFieldSet = "uri", true
	if _, err := bad.Resolve(h, pos, true); err == nil || err.Error() != "--id-field uri, but the documents were shingled with id-field=url (the shingle header of clusters.tsv)" {
		t.Errorf("a disagreeing --id-field: %v", err)
	}
	num := def
	num.Number, num.NumberFrom, num.NumberSet = true, 1, true
	// The flag's first number is taken: the records may carry an earlier
	// batch's header.
	if r, err := num.Resolve(h, pos, true); err != nil || !r.Number || r.NumberFrom != 1 {
		t.Errorf("--number-from 1 after a header from=5: %+v, %v", r, err)
	}
	// format=auto takes a format given; a concrete one refuses another.
	given := def
	given.Format, given.FormatFlag = FormatJSONL, "--format jsonl"
	if r, err := given.Resolve(h, pos, true); err != nil || r.Format != FormatJSONL {
		t.Errorf("--format jsonl under format=auto: %+v %v", r, err)
	}
	lines := record.NewHeader("shingle", "format", "lines", "ids", "given")
	if _, err := given.Resolve(lines, pos, true); err == nil {
		t.Errorf("--format jsonl under format=lines was taken")
	}
	// No header: the flags.
	if r, err := bad.Resolve(record.Header{}, pos, false); err != nil || r.IDField != "uri" || !r.IDRequired {
		t.Errorf("no header: %+v %v", r, err)
	}
}

func TestNumberedIDs(t *testing.T) {
	r := DefaultReading()
	r.Number, r.NumberFrom = true, 1
	p := NewReadingParser(r, nil)
	for _, c := range []struct {
		format, line string
		ordinal      int64
		want         string
	}{
		{FormatTSV, "x\thello", 1, "000000000001"},
		{FormatJSONL, `{"id":"x","text":"hello"}`, 10, "000000000010"},
		{FormatJSONL, `{"text":"hello"}`, 3, "000000000003"},
		{FormatLines, "hello", 999, "000000000999"},
	} {
		id, _, err := p.Parse(c.format, []byte(c.line), c.ordinal)
		if err != nil || string(id) != c.want {
			t.Errorf("%s %q: %q %v, want %s", c.format, c.line, id, err, c.want)
		}
	}
	if _, err := AppendNumber(nil, 999_999_999_999, 2); err == nil {
		t.Errorf("a 13-digit number was written")
	}
}

func TestIDRequired(t *testing.T) {
	r := DefaultReading()
	r.IDField, r.IDRequired = "url", true
	if _, _, err := NewReadingParser(r, nil).Parse(FormatJSONL, []byte(`{"text":"a"}`), 1); err == nil {
		t.Errorf("a missing --id-field given was taken")
	}
}
