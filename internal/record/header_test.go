package record_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/status"
)

func TestIsHeader(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"#neardup stage=shingle k=9", true},
		{"#neardup", true},
		{"#neardup\n", true},
		{"#neardup\r\n", true},
		{"#neardup ", true},
		{"#neardupx stage=a", false}, // an id that starts with #neardup
		{"#neardup\tstage=a", false}, // a record whose id is #neardup
		{"#neardu", false},
		{"#NEARDUP stage=a", false},
		{"# neardup stage=a", false},
		{"#comment", false},
		{"#", false},
		{"", false},
		{" #neardup stage=a", false},
		{"neardup stage=a", false},
		{"id\t#neardup stage=a", false},
	}
	for _, tt := range tests {
		if got := record.IsHeader([]byte(tt.line)); got != tt.want {
			t.Errorf("IsHeader(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		line string
		want record.Header
		err  string // a part of the message when it fails
	}{
		{
			line: "#neardup stage=shingle unit=char k=9 hash=tok64",
			want: record.NewHeader("shingle", "unit", "char", "k", "9", "hash", "tok64"),
		},
		{
			line: "#neardup stage=sketch\n",
			want: record.Header{Stage: "sketch"},
		},
		{
			line: "#neardup  k=5   stage=band\tb=20 \r\n",
			want: record.NewHeader("band", "k", "5", "b", "20"),
		},
		{
			line: "#neardup stage=x expr=a=b empty=",
			want: record.NewHeader("x", "expr", "a=b", "empty", ""),
		},
		{line: "#neardup", err: "no stage="},
		{line: "#neardup k=9", err: "no stage="},
		{line: "#neardup stage=", err: "empty stage="},
		{line: "#neardup stage= stage=x", err: "empty stage="},
		{line: "#neardup stage=a stage=b", err: "two stages, a and b"},
		{line: "#neardup stage=a k", err: `malformed header field "k"`},
		{line: "#neardup stage=a =9", err: `malformed header field "=9"`},
	}
	for _, tt := range tests {
		h, err := record.ParseHeader([]byte(tt.line))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHeader(%q) error = %v, want one containing %q", tt.line, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseHeader(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(h, tt.want) {
			t.Errorf("ParseHeader(%q) = %#v, want %#v", tt.line, h, tt.want)
		}
	}
}

func TestHeaderString(t *testing.T) {
	h := record.NewHeader("sketch", "method", "minhash", "n", "128", "seed", "0")
	const want = "#neardup stage=sketch method=minhash n=128 seed=0"
	if got := h.String(); got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if !record.IsHeader([]byte(want)) {
		t.Errorf("IsHeader(%q) = false", want)
	}
	back, err := record.ParseHeader([]byte(want + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, h) {
		t.Errorf("ParseHeader(String()) = %#v, want %#v", back, h)
	}
	if got := record.NewHeader("band").String(); got != "#neardup stage=band" {
		t.Errorf("String() of a header without parameters = %q", got)
	}
}

func TestHeaderGetInt(t *testing.T) {
	h := record.NewHeader("sketch", "n", "128", "method", "minhash", "neg", "-3")
	if v, ok := h.Get("method"); !ok || v != "minhash" {
		t.Errorf("Get(method) = %q, %v", v, ok)
	}
	if v, ok := h.Get("missing"); ok || v != "" {
		t.Errorf("Get(missing) = %q, %v", v, ok)
	}
	for key, want := range map[string]int{"n": 128, "neg": -3, "method": 7, "missing": 7} {
		if got := h.Int(key, 7); got != want {
			t.Errorf("Int(%q, 7) = %d, want %d", key, got, want)
		}
	}
	// An odd trailing key has no value and is left out.
	if odd := record.NewHeader("x", "a", "1", "b"); len(odd.Params) != 1 {
		t.Errorf("NewHeader with an odd key list: %v", odd.Params)
	}
}

func TestHeaderSet(t *testing.T) {
	var s record.HeaderSet
	sh9 := record.NewHeader("shingle", "unit", "char", "k", "9")
	sh5 := record.NewHeader("shingle", "unit", "char", "k", "5")
	sk := record.NewHeader("sketch", "n", "128")
	a1 := record.Pos{File: "a.tsv", Line: 1}
	b3 := record.Pos{File: "b.tsv", Line: 3}

	if isNew, err := s.Add(sh9, a1); !isNew || err != nil {
		t.Fatalf("first Add = %v, %v", isNew, err)
	}
	if isNew, err := s.Add(sh9, b3); isNew || err != nil {
		t.Fatalf("Add of an identical header = %v, %v, want false, nil", isNew, err)
	}
	if isNew, err := s.Add(sk, b3); !isNew || err != nil {
		t.Fatalf("Add of another stage = %v, %v", isNew, err)
	}
	_, err := s.Add(sh5, record.Pos{File: "c.tsv", Line: 7})
	var re *record.Error
	if !errors.As(err, &re) {
		t.Fatalf("Add of a conflicting header: error %v (%T), want *record.Error", err, err)
	}
	const want = "c.tsv:7: shingle records made with k=5 can't be combined with those made with k=9 (a.tsv:1)"
	if err.Error() != want {
		t.Errorf("conflict message\n got %s\nwant %s", err, want)
	}
	if re.Class() != status.BadInput {
		t.Errorf("Class() = %d, want BadInput", re.Class())
	}

	if h, ok := s.Get("shingle"); !ok || h.String() != sh9.String() {
		t.Errorf("Get(shingle) = %v, %v; the first header must stay", h, ok)
	}
	if _, ok := s.Get("band"); ok {
		t.Errorf("Get(band) found a header")
	}
	if p := s.Pos("sketch"); p != b3 {
		t.Errorf("Pos(sketch) = %v, want %v", p, b3)
	}
	if all := s.All(); len(all) != 2 || all[0].Stage != "shingle" || all[1].Stage != "sketch" {
		t.Errorf("All() = %v", all)
	}
}

func TestHeaderSetConflictMessages(t *testing.T) {
	p := record.Pos{File: "x", Line: 2}
	tests := []struct {
		old, new record.Header
		want     string
	}{
		{ // a key only the new header has
			record.NewHeader("sketch", "n", "128"),
			record.NewHeader("sketch", "n", "128", "seed", "1"),
			"y:5: sketch records made with seed=1 can't be combined with those made with seed=(none) (x:2)",
		},
		{ // a key only the old header has
			record.NewHeader("sketch", "n", "128", "seed", "1"),
			record.NewHeader("sketch", "n", "128"),
			"y:5: sketch records made with seed=(none) can't be combined with those made with seed=1 (x:2)",
		},
		{ // the first key that differs is named
			record.NewHeader("sketch", "method", "minhash", "n", "128", "seed", "1"),
			record.NewHeader("sketch", "method", "minhash", "n", "64", "seed", "2"),
			"y:5: sketch records made with n=64 can't be combined with those made with n=128 (x:2)",
		},
		{ // same parameters in another order
			record.NewHeader("sketch", "n", "128", "seed", "1"),
			record.NewHeader("sketch", "seed", "1", "n", "128"),
			`y:5: sketch header "#neardup stage=sketch seed=1 n=128" differs from "#neardup stage=sketch n=128 seed=1" (x:2)`,
		},
	}
	for _, tt := range tests {
		var s record.HeaderSet
		if _, err := s.Add(tt.old, p); err != nil {
			t.Fatal(err)
		}
		_, err := s.Add(tt.new, record.Pos{File: "y", Line: 5})
		if err == nil || err.Error() != tt.want {
			t.Errorf("conflict of %v and %v\n got %v\nwant %s", tt.old, tt.new, err, tt.want)
		}
	}
}

func TestHeaderSetMerge(t *testing.T) {
	var a, b, c record.HeaderSet
	sh := record.NewHeader("shingle", "k", "9")
	a.Add(sh, record.Pos{File: "a", Line: 1})
	b.Add(sh, record.Pos{File: "b", Line: 1})
	b.Add(record.NewHeader("sketch", "n", "64"), record.Pos{File: "b", Line: 2})
	if err := a.Merge(&b); err != nil {
		t.Fatal(err)
	}
	if len(a.All()) != 2 || a.Pos("shingle").File != "a" || a.Pos("sketch").File != "b" {
		t.Errorf("after Merge: %v, shingle at %v, sketch at %v", a.All(), a.Pos("shingle"), a.Pos("sketch"))
	}
	c.Add(record.NewHeader("shingle", "k", "5"), record.Pos{File: "c", Line: 4})
	err := a.Merge(&c)
	if err == nil || !strings.HasPrefix(err.Error(), "c:4: ") || !strings.Contains(err.Error(), "(a:1)") {
		t.Errorf("Merge of a conflicting set: %v", err)
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{record.Errorf(record.Pos{File: "in.tsv", Line: 12}, "want %d fields", 2), "in.tsv:12: want 2 fields"},
		{record.Errorf(record.Pos{File: "<stdin>", Line: 1}, "bad"), "<stdin>:1: bad"},
		{record.Errorf(record.Pos{File: "dir/doc.txt"}, "unreadable"), "dir/doc.txt: unreadable"},
		{record.Bad("hash %d: bad", 3), "hash 3: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestHeaderSetDocumentKeys(t *testing.T) {
	var s record.HeaderSet
	old := record.NewHeader("shingle", "unit", "char", "k", "9")
	newer := record.NewHeader("shingle", "unit", "char", "k", "9", "format", "auto", "ids", "number", "from", "5")
	if _, err := s.Add(old, record.Pos{File: "a"}); err != nil {
		t.Fatal(err)
	}
	if isNew, err := s.Add(newer, record.Pos{File: "b"}); err != nil || isNew {
		t.Fatalf("a header that differs only in document keys: new %v, %v", isNew, err)
	}
	if p, ok := s.DocumentsVary(); !ok || p.File != "b" {
		t.Errorf("DocumentsVary: %v %v", p, ok)
	}
	if _, err := s.Add(record.NewHeader("shingle", "unit", "char", "k", "5"), record.Pos{File: "c"}); err == nil {
		t.Errorf("a header that differs in k was taken")
	}
	if record.IsDocumentKey("sketch", "format") || !record.IsDocumentKey("shingle", "ids") {
		t.Errorf("record.IsDocumentKey")
	}
}
