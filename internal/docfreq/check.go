package docfreq

import "github.com/neardup/neardup/internal/record"

// ShingleParams are the shingle header parameters that make two shingle
// hashes of one text equal (counts only says how they were written).
var ShingleParams = []string{"unit", "k", "hash", "seed", "stopwords"}

// CheckShingles refuses input shingles (header h, read at pos) made under
// other parameters than the shingles the table, read from name, counted.
func (t *Table) CheckShingles(name string, h record.Header, pos record.Pos) error {
	if t.Shingle == nil {
		return nil
	}
	for _, k := range ShingleParams {
		a, aok := t.Shingle.Get(k)
		b, bok := h.Get(k)
		if a != b || aok != bok {
			if !aok {
				a = "(none)"
			}
			if !bok {
				b = "(none)"
			}
			return record.Errorf(pos, "the input's shingles were made with %s=%s, the --df table %s counted shingles made with %s=%s (%s)",
				k, b, name, k, a, t.ShinglePos)
		}
	}
	return nil
}

// Each calls fn with every hash the table holds and its count, ascending.
func (t *Table) Each(fn func(hash uint64, count uint32)) {
	for i, h := range t.hashes {
		fn(h, t.counts[i])
	}
}
