package shingle

import (
	"fmt"
	"strconv"

	"github.com/neardup/neardup/internal/record"
	"github.com/neardup/neardup/internal/token"
)

// OptionsFromHeader returns the shingling a shingle header names, so that
// a later stage can shingle documents again exactly as the records were
// made. A header naming a stop-word list read from a file needs that list
// (custom, checked by its name).
func OptionsFromHeader(h record.Header, custom *Stopwords) (Options, error) {
	var o Options
	get := func(key string) (string, error) {
		v, ok := h.Get(key)
		if !ok {
			return "", fmt.Errorf("the shingle header has no %s=", key)
		}
		return v, nil
	}
	v, err := get("unit")
	if err != nil {
		return o, err
	}
	if o.Unit, err = ParseUnit(v); err != nil {
		return o, err
	}
	if v, err = get("k"); err != nil {
		return o, err
	}
	if o.K, err = strconv.Atoi(v); err != nil || o.K < 1 {
		return o, fmt.Errorf("the shingle header has k=%s", v)
	}
	if v, err = get("hash"); err != nil {
		return o, err
	}
	if o.Scheme, err = ParseScheme(v); err != nil {
		return o, err
	}
	if v, err = get("seed"); err != nil {
		return o, err
	}
	if o.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
		return o, fmt.Errorf("the shingle header has seed=%s", v)
	}
	// Records made before normalize= existed were not normalized.
	if v, ok := h.Get("normalize"); ok {
		if o.Norm, err = token.ParseNormalization(v); err != nil {
			return o, fmt.Errorf("the shingle header has normalize=%s", v)
		}
	}
	if o.Unit == Stopword {
		name, _ := h.Get("stopwords")
		switch {
		case name == "" || name == English().Name():
			if custom != nil && custom.Name() != English().Name() {
				return o, fmt.Errorf("the records were made with the built-in stop words, not %s", custom.Name())
			}
			o.Stopwords = English()
		case custom == nil:
			return o, fmt.Errorf("the records were made with stop words read from a file (stopwords=%s): give the same file with --stopwords", name)
		case custom.Name() != name:
			return o, fmt.Errorf("the records were made with stopwords=%s, the --stopwords file is %s", name, custom.Name())
		default:
			o.Stopwords = custom
		}
	}
	return o, nil
}

// Set appends to dst the distinct shingle hashes of text, ascending: the
// set a shingle record lists.
func (w *Worker) Set(dst []uint64, text []byte) []uint64 {
	w.hashes = w.sh.Append(w.hashes[:0], text)
	return w.sorter.AppendSet(dst, w.hashes)
}

// Hashes appends to dst the shingle hashes of text, as they come, with
// their repeats: for a sketch that makes the set itself.
func (w *Worker) Hashes(dst []uint64, text []byte) []uint64 {
	return w.sh.Append(dst, text)
}

// Stream hands each the shingle hashes of text in parts, as they come,
// with their repeats (Shingler.Stream), through buf, which it returns.
func (w *Worker) Stream(buf []uint64, text []byte, each func([]uint64)) []uint64 {
	return w.sh.Stream(buf, text, each)
}

// Distinct appends to dst the distinct shingle hashes of text in no
// particular order (the order of their first occurrence, or ascending): the
// set of Set, for a sketch that does not depend on the order of the set, in
// about half the time Set takes to sort it.
func (w *Worker) Distinct(dst []uint64, text []byte) []uint64 {
	w.hashes = w.sh.Append(w.hashes[:0], text)
	return w.distinct.appendDistinct(dst, w.hashes)
}
