package input

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJSONFields checks JSONFields against encoding/json, decoding into a
// map[string]json.RawMessage (exact key match, last duplicate wins):
//
//   - a line is accepted exactly when encoding/json accepts it as an object;
//   - on valid UTF-8, a field is found exactly when encoding/json has the
//     key, a string value decodes to the same bytes and any other value is
//     returned as written.
//
// Known differences, left out of the comparison:
//   - JSONFields refuses nesting deeper than maxJSONDepth (encoding/json
//     allows 10000 levels);
//   - bytes that are not UTF-8 inside strings are passed through, where
//     encoding/json turns each into U+FFFD: ids are opaque bytes.
func FuzzJSONFields(f *testing.F) {
	for _, s := range []string{
		`{"id":"d1","text":"hello"}`,
		` { "text" : "a\"b\\c\/\b\f\n\r\t\u00e9" , "id" : -1.5e+3 } `,
		`{"id":"\ud83d\ude00\ud83d\ud83d\ude00\ude00x","text":null}`,
		`{"a":[1,{"b":[true,false,null]},"s"],"id":{"c":[]},"text":"t","id":"last"}`,
		`{"\u0069d":0,"te\u0078t":"y"}`,
		`{"id":01}`,
		`{"id":"x"} x`,
		"{\"id\":\"a\xffb\"}",
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		j := JSONFields{IDKey: "id", TextKey: "text"}
		id, text, err := j.Parse(line)
		if err != nil && strings.Contains(err.Error(), "nested too deeply") {
			return
		}
		var m map[string]json.RawMessage
		stdErr := json.Unmarshal(line, &m)
		stdObject := stdErr == nil && m != nil // "null" decodes to a nil map
		if stdObject != (err == nil) {
			t.Fatalf("Parse(%q): error %v, but encoding/json: %v (object: %v)", line, err, stdErr, stdObject)
		}
		if err != nil || !utf8.Valid(line) {
			return
		}
		for _, kv := range []struct {
			key string
			v   JSONValue
		}{{"id", id}, {"text", text}} {
			raw, ok := m[kv.key]
			if ok != kv.v.Found {
				t.Fatalf("Parse(%q): %s found %v, encoding/json %v", line, kv.key, kv.v.Found, ok)
			}
			if !ok {
				continue
			}
			if raw[0] != '"' {
				if kv.v.IsString || !bytes.Equal(kv.v.Bytes, raw) {
					t.Fatalf("Parse(%q): %s = %q (string %v), encoding/json %s", line, kv.key, kv.v.Bytes, kv.v.IsString, raw)
				}
				continue
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("encoding/json: %s = %s: %v", kv.key, raw, err)
			}
			if !kv.v.IsString || string(kv.v.Bytes) != s {
				t.Fatalf("Parse(%q): %s = %q (string %v), encoding/json %q", line, kv.key, kv.v.Bytes, kv.v.IsString, s)
			}
		}
	})
}
