package input

import (
	"strings"
	"testing"
)

func TestDocParser(t *testing.T) {
	p := NewDocParser("id", "text")
	for _, c := range []struct {
		format, line string
		ordinal      int64
		id, text     string
		err          string
	}{
		{FormatTSV, `a\\qb` + "\t" + `x\ty\q`, 1, `a\\qb`, "x\ty\\q", ""},
		{FormatTSV, `a\qb` + "\t" + `x\ty`, 1, "", "", `id a\qb: \q is not an escape`},
		{FormatTSV, `a\` + "\tx", 1, "", "", `id a\: a lone backslash ends it`},
		{FormatTSV, "\tx", 1, "", "", "empty id"},
		{FormatJSONL, `{"id":"","text":"t"}`, 3, "", "", "empty id"},
		{FormatTSV, "id\ttext\tmore", 1, "", "", "want 2 fields"},
		{FormatTSV, "no tab", 1, "", "", "found no TAB"},
		{FormatLines, "any\ttext", 7, "7", "any\ttext", ""},
		{FormatJSONL, `{"id":"a\tb","text":"t"}`, 3, `a\tb`, "t", ""},
		{FormatJSONL, `{"id":-12.5e3,"text":"t"}`, 3, "-12.5e3", "t", ""},
		{FormatJSONL, `{"text":"t","id":null}`, 3, "3", "t", ""},
		{FormatJSONL, `{"id":true,"text":"t"}`, 3, "", "", "a boolean"},
		{FormatJSONL, `{"id":"x","text":5}`, 3, "", "", `field "text" is a number`},
		{FormatJSONL, `  `, 3, "", "", "empty line"},
		{FormatTSV, ` {"id":"a","text":"t"}`, 1, "", "", "want id TAB text, found no TAB; the input looks like JSON Lines: give --format jsonl (or name the file .jsonl)"},
		{FormatJSONL, "a\tsome text", 1, "", "", "; the input looks like TSV (id TAB text): give --format tsv (or name the file .tsv)"},
	} {
		id, text, err := p.Parse(c.format, []byte(c.line), c.ordinal)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %q: err = %v, want %q", c.format, c.line, err, c.err)
			}
			continue
		}
		if err != nil || string(id) != c.id || string(text) != c.text {
			t.Errorf("%s %q: got %q %q %v, want %q %q", c.format, c.line, id, text, err, c.id, c.text)
		}
	}
	// No hint where the line does not look like the other format.
	for _, c := range []struct{ format, line string }{
		{FormatTSV, "no tab"}, {FormatJSONL, "no tab"}, {FormatJSONL, "{\"id\":\t1,"},
	} {
		if _, _, err := p.Parse(c.format, []byte(c.line), 1); err == nil || strings.Contains(err.Error(), "looks like") {
			t.Errorf("%s %q: err = %v, want one without a hint", c.format, c.line, err)
		}
	}
	for name, want := range map[string]string{"a.jsonl.zst": FormatJSONL, "b.JSON": FormatJSONL, "c.ndjson.gz": FormatJSONL, "d.tsv": FormatTSV, "e": FormatTSV} {
		if got := ResolveFormat(FormatAuto, name); got != want {
			t.Errorf("ResolveFormat(%q) = %q, want %q", name, got, want)
		}
	}
	if ResolveFormat(FormatAuto, StdinName) != FormatTSV || ResolveFormat(FormatLines, "x.jsonl") != FormatLines {
		t.Error("ResolveFormat: standard input is TSV, and a format given wins")
	}
	if got := string(FileID(nil, "dir/a\tb")); got != `dir/a\tb` {
		t.Errorf("FileID = %q", got)
	}
}
