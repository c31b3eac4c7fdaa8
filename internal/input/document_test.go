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

// TestDocParserWant: a TSV line whose id Want refuses comes with a nil text
// (still checked as a line), one it wants with its text unescaped; with
// arrival numbers Want is asked the number. JSON Lines are not asked.
func TestDocParserWant(t *testing.T) {
	var asked []string
	p := NewDocParser("id", "text")
	p.Want = func(id []byte) bool {
		asked = append(asked, string(id))
		return string(id) == "b" || string(id) == "000000000011"
	}
	for _, c := range []struct {
		format, line string
		id           string
		text         []byte
		err          string
	}{
		{FormatTSV, "a\tx\\ty", "a", nil, ""},
		{FormatTSV, "b\tx\\ty", "b", []byte("x\ty"), ""},
		{FormatTSV, "c\tx\ty", "", nil, "want 2 fields"},
		{FormatJSONL, `{"id":"d","text":"t"}`, "d", []byte("t"), ""},
	} {
		id, text, err := p.Parse(c.format, []byte(c.line), 1)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || string(id) != c.id || (text == nil) != (c.text == nil) || string(text) != string(c.text) {
			t.Errorf("%q: %q %q %v, want %q %q", c.line, id, text, err, c.id, c.text)
		}
	}
	if got := strings.Join(asked, " "); got != "a b" {
		t.Errorf("Want was asked %q, want \"a b\"", got)
	}
	r := DefaultReading()
	r.Number, r.NumberFrom = true, 10
	p = NewReadingParser(r, nil)
	p.Want = func(id []byte) bool { return string(id) == "000000000011" }
	for ordinal, want := range []string{"", "x"} {
		id, text, err := p.Parse(FormatTSV, []byte("any\tx"), int64(ordinal+1))
		if err != nil || string(text) != want || want == "" && text != nil {
			t.Errorf("ordinal %d: %q %q %v, want the text %q", ordinal, id, text, err, want)
		}
	}
}
