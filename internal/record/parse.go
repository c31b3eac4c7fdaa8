package record

import (
	"slices"
	"strconv"
)

// ParseShingles parses the hash field of a shingle record: hashes separated
// by one space, each 16 hex digits and optionally ":count", strictly
// ascending. Hashes are appended to hashes; when counts is not nil the counts
// (1 where none is written) are appended to it.
func ParseShingles(hashes []uint64, counts []uint32, field []byte) ([]uint64, []uint32, error) {
	withCounts := counts != nil
	// Hashes are numbered, and compared with the one before, within this
	// field only: hashes may already hold other records' hashes.
	start := len(hashes)
	var prev uint64
	i := 0
	if !withCounts {
		// The common form, h h h: all but the last hash 16 bytes at a
		// time where the CPU can, then checked for order. The loop below
		// does the rest, from a hash out of order, and names what is
		// wrong.
		hashes = slices.Grow(hashes, len(field)/17+1)
		if n := hexRun(hashes[start:start+len(field)/17], field); n > 0 {
			run := hashes[start : start+n]
			k := 1
			for k < n && run[k] > run[k-1] {
				k++
			}
			hashes = hashes[:start+k]
			prev = run[k-1]
			i = 17 * k
		}
	}
	for i < len(field) {
		if len(field)-i < 16 {
			return hashes, counts, Bad("hash %d: want 16 hex digits, found %q", len(hashes)-start+1, clip(field[i:]))
		}
		h, ok := ParseHex64(field[i : i+16])
		if !ok {
			return hashes, counts, Bad("hash %d: want 16 hex digits, found %q", len(hashes)-start+1, clip(field[i:]))
		}
		if len(hashes) > start && h <= prev {
			return hashes, counts, Bad("hash %d (%016x) is not above the one before it: shingle hashes are distinct and ascending", len(hashes)-start+1, h)
		}
		prev = h
		i += 16
		c := uint64(1)
		if i < len(field) && field[i] == ':' {
			j := i + 1
			for j < len(field) && field[j] != ' ' {
				j++
			}
			var ok bool
			c, ok = ParseUint(field[i+1 : j])
			if !ok || c == 0 || c > 1<<32-1 {
				return hashes, counts, Bad("hash %d: bad count %q", len(hashes)-start+1, clip(field[i+1:j]))
			}
			i = j
		}
		hashes = append(hashes, h)
		if withCounts {
			counts = append(counts, uint32(c))
		}
		if i < len(field) {
			if field[i] != ' ' || i+1 == len(field) {
				return hashes, counts, Bad("hash %d: want one space between hashes, found %q", len(hashes)-start, clip(field[i:]))
			}
			i++
		}
	}
	return hashes, counts, nil
}

// ParseHexList parses a field of 16-digit hex values separated by one space,
// in any order.
func ParseHexList(dst []uint64, field []byte) ([]uint64, error) {
	for i := 0; i < len(field); {
		if len(field)-i < 16 {
			return dst, Bad("value %d: want 16 hex digits, found %q", len(dst)+1, clip(field[i:]))
		}
		v, ok := ParseHex64(field[i : i+16])
		if !ok {
			return dst, Bad("value %d: want 16 hex digits, found %q", len(dst)+1, clip(field[i:]))
		}
		dst = append(dst, v)
		i += 16
		if i < len(field) {
			if field[i] != ' ' || i+1 == len(field) {
				return dst, Bad("value %d: want one space between values, found %q", len(dst), clip(field[i:]))
			}
			i++
		}
	}
	return dst, nil
}

// AppendHexList appends values as 16-digit hex separated by one space.
func AppendHexList(dst []byte, values []uint64) []byte {
	for i, v := range values {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = AppendHex64(dst, v)
	}
	return dst
}

// Sketch is a parsed sketch record.
type Sketch struct {
	ID     []byte
	Size   uint64
	Values []uint64
	// ValuesField is the values as written.
	ValuesField []byte
}

// ParseSketch parses "id TAB size TAB v1 v2 …" into s, reusing its slices.
// The id and the values field alias line.
func ParseSketch(s *Sketch, line []byte) error {
	id, n, vals, err := cutSized(line, "values")
	if err != nil {
		return err
	}
	s.ID = id
	s.Size = n
	s.ValuesField = vals
	s.Values, err = ParseHexList(s.Values[:0], vals)
	return err
}

// cutSized cuts "id TAB size TAB field" (the field named what in
// messages), the id checked and the size a number.
func cutSized(line []byte, what string) (id []byte, n uint64, field []byte, err error) {
	id, rest, ok := Cut(line)
	if !ok {
		return nil, 0, nil, Bad("want id TAB size TAB %s, found no TAB", what)
	}
	size, field, ok := Cut(rest)
	if !ok {
		return nil, 0, nil, Bad("want id TAB size TAB %s, found 2 fields", what)
	}
	if _, _, more := Cut(field); more {
		return nil, 0, nil, Bad("want id TAB size TAB %s, found more than 3 fields", what)
	}
	if err := CheckID(id); err != nil {
		return nil, 0, nil, err
	}
	n, ok = ParseUint(size)
	if !ok {
		return nil, 0, nil, Bad("size %q is not a number", clip(size))
	}
	return id, n, field, nil
}

// AppendSketch appends a sketch record.
func AppendSketch(dst, id []byte, size uint64, values []uint64) []byte {
	dst = append(dst, id...)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, size, 10)
	dst = append(dst, '\t')
	dst = AppendHexList(dst, values)
	return append(dst, '\n')
}

// clip shortens a field for a message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
