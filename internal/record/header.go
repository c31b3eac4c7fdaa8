package record

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// HeaderPrefix starts every header line neardup writes.
const HeaderPrefix = "#neardup"

// stageOrder is the order of the stages in a pipeline, which is the order
// their headers are written in.
var stageOrder = []string{"parts", "shingle", "docfreq", "sketch", "band", "index", "pairs", AttachStage, "verify", "cluster", "keep"}

// AttachStage names the header of attached pairs, the intermediate record
// of verify's join (verify --attach writes it, verify --sorted reads it).
const AttachStage = "attach"

// StageRank returns the place of a stage in a pipeline; unknown stages come
// last.
func StageRank(stage string) int {
	for i, s := range stageOrder {
		if s == stage {
			return i
		}
	}
	return len(stageOrder)
}

// Param is one key=value pair of a header.
type Param struct {
	Key, Value string
}

// Header is one stage's header line: the stage name and its parameters in
// the order they are written.
type Header struct {
	Stage  string
	Params []Param
}

// NewHeader returns a header for stage with params given as alternating keys
// and values.
func NewHeader(stage string, kv ...string) Header {
	h := Header{Stage: stage}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Params = append(h.Params, Param{kv[i], kv[i+1]})
	}
	return h
}

// Get returns the value of key and whether it is present.
func (h Header) Get(key string) (string, bool) {
	for _, p := range h.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Int returns the value of key as an integer, or def when it is absent or
// not a number.
func (h Header) Int(key string, def int) int {
	v, ok := h.Get(key)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def
	}
	return n
}

// String formats the header line without its line end.
func (h Header) String() string {
	var b strings.Builder
	b.WriteString(HeaderPrefix)
	b.WriteString(" stage=")
	b.WriteString(h.Stage)
	for _, p := range h.Params {
		b.WriteByte(' ')
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	return b.String()
}

// IsHeader reports whether a line is a header line: it starts with
// "#neardup" followed by a space or the end of the line. Other lines that
// start with '#' are records (an id may begin with '#').
func IsHeader(line []byte) bool {
	if len(line) < len(HeaderPrefix) || line[0] != '#' || string(line[:len(HeaderPrefix)]) != HeaderPrefix {
		return false
	}
	rest := line[len(HeaderPrefix):]
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\n' || rest[0] == '\r'
}

// ParseHeader parses a "#neardup stage=… key=value …" line (with or without
// its line end). The caller has checked IsHeader.
func ParseHeader(line []byte) (h Header, err error) {
	line = TrimEOL(line)
	rest, _ := bytes.CutPrefix(line, []byte(HeaderPrefix))
	for _, f := range strings.Fields(string(rest)) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return Header{}, fmt.Errorf("malformed header field %q: want key=value", f)
		}
		if k == "stage" {
			if v == "" {
				return Header{}, fmt.Errorf("header has an empty stage=")
			}
			if h.Stage != "" {
				return Header{}, fmt.Errorf("header names two stages, %s and %s", h.Stage, v)
			}
			h.Stage = v
			continue
		}
		h.Params = append(h.Params, Param{k, v})
	}
	if h.Stage == "" {
		return Header{}, fmt.Errorf("header has no stage=")
	}
	return h, nil
}

// documentKeys are the keys of a shingle header that say how the documents
// were read and their ids made (format, id-field, text-field, ids, from,
// and inputs, which binds the numbers to the inputs numbered), not how any
// value was computed.
var documentKeys = []string{"format", "id-field", "text-field", "ids", "from", "inputs"}

// IsDocumentKey says whether key is one of the document parameters of a
// shingle header.
func IsDocumentKey(stage, key string) bool {
	return stage == "shingle" && slices.Contains(documentKeys, key)
}

// withoutDocumentKeys returns h without its document parameters.
func withoutDocumentKeys(h Header) Header {
	out := Header{Stage: h.Stage}
	for _, p := range h.Params {
		if !IsDocumentKey(h.Stage, p.Key) {
			out.Params = append(out.Params, p)
		}
	}
	return out
}

// HeaderSet holds the distinct header lines read so far, one per stage, with
// the place each was first seen.
type HeaderSet struct {
	list []Header
	pos  []Pos
	// varies is where a shingle header that read the documents otherwise
	// than the one held was first seen.
	varies *Pos
}

// DocumentsVary reports whether two shingle headers were added that
// differ in how the documents were read, and where the second was seen.
func (s *HeaderSet) DocumentsVary() (Pos, bool) {
	if s.varies == nil {
		return Pos{}, false
	}
	return *s.varies, true
}

// Add records a header read at pos. It returns true when the header is new
// (not identical to one already held) and an error when a different header
// for the same stage is already held: records made with different parameters
// must not be combined.
//
// Shingle headers that differ only in how the documents were read (the
// document keys: format, id-field, text-field, ids, from, inputs; absent from
// headers written before they were added) are one: their values compare.
// The first is held, and DocumentsVary then reports the difference.
func (s *HeaderSet) Add(h Header, pos Pos) (bool, error) {
	for i, old := range s.list {
		if old.Stage != h.Stage {
			continue
		}
		if old.String() == h.String() {
			return false, nil
		}
		if h.Stage == "shingle" && withoutDocumentKeys(old).String() == withoutDocumentKeys(h).String() {
			if s.varies == nil {
				s.varies = &Pos{}
				*s.varies = pos
			}
			return false, nil
		}
		return false, &Error{Pos: pos, Msg: conflictMessage(old, s.pos[i], h)}
	}
	s.list = append(s.list, h)
	s.pos = append(s.pos, pos)
	return true, nil
}

// conflictMessage names the first parameter in which two headers of one
// stage differ, with both values.
func conflictMessage(old Header, oldPos Pos, h Header) string {
	keys := map[string]bool{}
	var order []string
	for _, hh := range []Header{old, h} {
		for _, p := range hh.Params {
			if !keys[p.Key] {
				keys[p.Key] = true
				order = append(order, p.Key)
			}
		}
	}
	for _, k := range order {
		a, aok := old.Get(k)
		b, bok := h.Get(k)
		if a != b || aok != bok {
			if !aok {
				a = "(none)"
			}
			if !bok {
				b = "(none)"
			}
			return fmt.Sprintf("%s records made with %s=%s can't be combined with those made with %s=%s (%s)",
				h.Stage, k, b, k, a, oldPos)
		}
	}
	return fmt.Sprintf("%s header %q differs from %q (%s)", h.Stage, h.String(), old.String(), oldPos)
}

// Get returns the header held for stage.
func (s *HeaderSet) Get(stage string) (Header, bool) {
	for _, h := range s.list {
		if h.Stage == stage {
			return h, true
		}
	}
	return Header{}, false
}

// Pos returns where the header of stage was first seen.
func (s *HeaderSet) Pos(stage string) Pos {
	for i, h := range s.list {
		if h.Stage == stage {
			return s.pos[i]
		}
	}
	return Pos{}
}

// All returns the headers held, in the order first seen.
func (s *HeaderSet) All() []Header { return s.list }

// Merge adds every header of other, as Add does.
func (s *HeaderSet) Merge(other *HeaderSet) error {
	for i, h := range other.list {
		if _, err := s.Add(h, other.pos[i]); err != nil {
			return err
		}
	}
	if p, ok := other.DocumentsVary(); ok && s.varies == nil {
		s.varies = &p
	}
	return nil
}
