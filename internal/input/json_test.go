package input

import (
	"strings"
	"testing"
)

// field describes an expected JSONValue: "" when not found, "s:…" for a
// string with its decoded bytes, "l:…" for another literal as written.
func describe(v JSONValue) string {
	switch {
	case !v.Found:
		return ""
	case v.IsString:
		return "s:" + string(v.Bytes)
	}
	return "l:" + string(v.Bytes)
}

func TestJSONFields(t *testing.T) {
	tests := []struct {
		line     string
		id, text string
	}{
		{`{"id":"d1","text":"hello"}`, "s:d1", "s:hello"},
		{` { "text" : "x" , "id" : 7 } `, "l:7", "s:x"},
		{"\t{\"id\":\"a\"}\r\n", "s:a", ""},
		{`{}`, "", ""},
		{`{"other":1}`, "", ""},
		// Escapes.
		{`{"text":"a\"b\\c\/d\be\ff\ng\rh\ti"}`, "", "s:a\"b\\c/d\be\ff\ng\rh\ti"},
		{`{"text":"\u0041\u00e9\u65e5\uFFFF"}`, "", "s:Aé日\uffff"},
		{`{"text":"\u0000"}`, "", "s:\x00"},
		// Surrogate pairs, and lone surrogates as U+FFFD (like encoding/json).
		{`{"text":"\ud83d\ude00"}`, "", "s:😀"},
		{`{"text":"\uD83D\uDE00"}`, "", "s:😀"},
		{`{"text":"\ud83d"}`, "", "s:\ufffd"},
		{`{"text":"\ude00"}`, "", "s:\ufffd"},
		{`{"text":"\ud83dx"}`, "", "s:\ufffdx"},
		{`{"text":"\ud83d\u0041"}`, "", "s:\ufffdA"},
		{`{"text":"\ud83d\ud83d\ude00"}`, "", "s:\ufffd😀"},
		{`{"text":"\ude00\ud83d"}`, "", "s:\ufffd\ufffd"},
		{`{"text":"\ud83d\n"}`, "", "s:\ufffd\n"},
		// Raw UTF-8 and bytes that are not UTF-8 pass through.
		{`{"text":"日本語 é"}`, "", "s:日本語 é"},
		{"{\"text\":\"a\xffb\"}", "", "s:a\xffb"},
		{"{\"text\":\"\x7f\"}", "", "s:\x7f"},
		// Keys are decoded before they are compared.
		{`{"\u0069d":"x","te\u0078t":"y"}`, "s:x", "s:y"},
		{`{"ID":"x","Text":"y"}`, "", ""},
		// Nested values are skipped, also when they hold the keys.
		{`{"meta":{"id":"no","text":["no"]},"id":"yes","text":"t"}`, "s:yes", "s:t"},
		{`{"a":[1,[2,{"b":[]}],{}],"text":"t","c":{"d":{"e":null}}}`, "", "s:t"},
		{`{"a":"}\"","text":"t"}`, "", "s:t"},
		// A key given twice takes its last value.
		{`{"id":"first","id":"second","text":"t"}`, "s:second", "s:t"},
		{`{"text":"first","text":2}`, "", "l:2"},
		{`{"id":1,"id":"x"}`, "s:x", ""},
		// Other values are returned as written.
		{`{"id":-0.5e+10,"text":null}`, "l:-0.5e+10", "l:null"},
		{`{"id":0,"text":true}`, "l:0", "l:true"},
		{`{"id":1E-2,"text":false}`, "l:1E-2", "l:false"},
		{`{"id":{"a":1},"text":[1, 2]}`, `l:{"a":1}`, "l:[1, 2]"},
		{`{"id":-0}`, "l:-0", ""},
		{`{"id":123456789012345678901234567890}`, "l:123456789012345678901234567890", ""},
	}
	j := JSONFields{IDKey: "id", TextKey: "text"}
	for _, tt := range tests {
		id, text, err := j.Parse([]byte(tt.line))
		if err != nil {
			t.Errorf("Parse(%s): %v", tt.line, err)
			continue
		}
		if got := describe(id); got != tt.id {
			t.Errorf("Parse(%s) id = %q, want %q", tt.line, got, tt.id)
		}
		if got := describe(text); got != tt.text {
			t.Errorf("Parse(%s) text = %q, want %q", tt.line, got, tt.text)
		}
	}
}

func TestJSONFieldsSameKey(t *testing.T) {
	j := JSONFields{IDKey: "body", TextKey: "body"}
	id, text, err := j.Parse([]byte(`{"body":"x"}`))
	if err != nil || describe(id) != "s:x" || describe(text) != "s:x" {
		t.Errorf("id and text both from one key: %q, %q, %v", describe(id), describe(text), err)
	}
}

// The values returned are valid until the next call; the scratch space is
// reused rather than grown for every line.
func TestJSONFieldsReuse(t *testing.T) {
	j := JSONFields{IDKey: "id", TextKey: "text"}
	_, text, err := j.Parse([]byte(`{"text":"first\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	first := &text.Bytes[0]
	_, text, err = j.Parse([]byte(`{"text":"again\n"}`))
	if err != nil || describe(text) != "s:again\n" {
		t.Fatalf("second line: %q, %v", describe(text), err)
	}
	if &text.Bytes[0] != first {
		t.Errorf("the text buffer was not reused")
	}
}

func TestJSONFieldsErrors(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{``, "invalid JSON at byte 1: want an object, one per line, got end of line"},
		{`   `, "invalid JSON at byte 4: want an object, one per line, got end of line"},
		{`[1]`, `invalid JSON at byte 1: want an object, one per line, got '['`},
		{`"x"`, `invalid JSON at byte 1: want an object, one per line, got '"'`},
		{`null`, `invalid JSON at byte 1: want an object, one per line, got 'n'`},
		{`{`, "invalid JSON at byte 2: want a string key, got end of line"},
		{`{"id"}`, `invalid JSON at byte 6: want ':' after key, got '}'`},
		{`{"id":}`, `invalid JSON at byte 7: want a value, got '}'`},
		{`{"id":"x",}`, `invalid JSON at byte 11: want a string key, got '}'`},
		{`{"id":"x" "text":"y"}`, `invalid JSON at byte 11: want ',' or '}' after value, got '"'`},
		{`{id:"x"}`, `invalid JSON at byte 2: want a string key, got 'i'`},
		{`{'id':"x"}`, `invalid JSON at byte 2: want a string key, got '\''`},
		{`{"id":"x"}}`, `invalid JSON at byte 11: want end of line after the object, got '}'`},
		{`{"id":"x"} {"id":"y"}`, `invalid JSON at byte 12: want end of line after the object, got '{'`},
		{`{"id":"x"} x`, `invalid JSON at byte 12: want end of line after the object, got 'x'`},
		{`{"id":"x`, "invalid JSON at byte 9: unterminated string, got end of line"},
		{`{"id":"x\`, "invalid JSON at byte 10: unterminated escape, got end of line"},
		{"{\"id\":\"a\tb\"}", `invalid JSON at byte 9: control character in string, got '\t'`},
		{"{\"id\":\"a\nb\"}", `invalid JSON at byte 9: control character in string, got '\n'`},
		{`{"id":"\x41"}`, `invalid JSON at byte 9: bad escape, got 'x'`},
		{`{"id":"\'"}`, `invalid JSON at byte 9: bad escape, got '\''`},
		{`{"id":"\u12"}`, `invalid JSON at byte 10: bad \u escape, got '1'`},
		{`{"id":"\u12g4"}`, `invalid JSON at byte 10: bad \u escape, got '1'`},
		{`{"id":"\ud83d\u12"}`, `invalid JSON at byte 16: bad \u escape, got '1'`},
		{`{"other":"\z"}`, `invalid JSON at byte 12: bad escape, got 'z'`},
		{`{"id":01}`, `invalid JSON at byte 8: want ',' or '}' after value, got '1'`},
		{`{"id":1.}`, `invalid JSON at byte 9: bad number, got '}'`},
		{`{"id":.5}`, `invalid JSON at byte 7: want a value, got '.'`},
		{`{"id":-}`, `invalid JSON at byte 8: bad number, got '}'`},
		{`{"id":+1}`, `invalid JSON at byte 7: want a value, got '+'`},
		{`{"id":1e}`, `invalid JSON at byte 9: bad number, got '}'`},
		{`{"id":1e+}`, `invalid JSON at byte 10: bad number, got '}'`},
		{`{"id":0x10}`, `invalid JSON at byte 8: want ',' or '}' after value, got 'x'`},
		{`{"id":NaN}`, `invalid JSON at byte 7: want a value, got 'N'`},
		{`{"id":tru}`, `invalid JSON at byte 7: bad literal, got 't'`},
		{`{"id":nul}`, `invalid JSON at byte 7: bad literal, got 'n'`},
		{`{"id":truex}`, `invalid JSON at byte 11: want ',' or '}' after value, got 'x'`},
		{`{"a":[1,]}`, `invalid JSON at byte 9: want a value, got ']'`},
		{`{"a":[1 2]}`, `invalid JSON at byte 9: want ',' or ']', got '2'`},
		{`{"a":{"b" 1}}`, `invalid JSON at byte 11: want ':' after key, got '1'`},
		{`{"a":{"b":1,}}`, `invalid JSON at byte 13: want a string key, got '}'`},
		{`{"a":{"b":1 "c":2}}`, `invalid JSON at byte 13: want ',' or '}', got '"'`},
		{`{"a":[`, "invalid JSON at byte 7: want a value, got end of line"},
		{"\ufeff{}", `invalid JSON at byte 1: want an object, one per line, got '\ufeff'`},
		{"{\"id\":\"x\"}\x00", `invalid JSON at byte 11: want end of line after the object, got '\x00'`},
	}
	j := JSONFields{IDKey: "id", TextKey: "text"}
	for _, tt := range tests {
		_, _, err := j.Parse([]byte(tt.line))
		if err == nil {
			t.Errorf("Parse(%q) accepted it", tt.line)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%q)\n got %s\nwant %s", tt.line, err, tt.want)
		}
	}
}

func TestJSONFieldsDepth(t *testing.T) {
	j := JSONFields{IDKey: "id", TextKey: "text"}
	ok := `{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `,"text":"t"}`
	if _, text, err := j.Parse([]byte(ok)); err != nil || describe(text) != "s:t" {
		t.Errorf("500 levels: %q, %v", describe(text), err)
	}
	deep := `{"a":` + strings.Repeat(`{"b":`, 5000) + "1" + strings.Repeat("}", 5000) + "}"
	_, _, err := j.Parse([]byte(deep))
	if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("5000 levels: error %v, want one about the nesting", err)
	}
}

func TestJSONFieldsErrorNamesCharacter(t *testing.T) {
	j := JSONFields{IDKey: "id", TextKey: "text"}
	for line, want := range map[string]string{
		`{"id":é}`:          `invalid JSON at byte 7: want a value, got 'é'`,
		"{\"id\":\xff}":     `invalid JSON at byte 7: want a value, got byte 0xff`,
		"{\"id\":\xe6\x97}": `invalid JSON at byte 7: want a value, got byte 0xe6`,
	} {
		if _, _, err := j.Parse([]byte(line)); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error\n got %v\nwant %s", line, err, want)
		}
	}
}
