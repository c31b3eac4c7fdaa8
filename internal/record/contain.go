package record

import "strconv"

// A containment band record, "key TAB id TAB role TAB size", is written by
// band --containment: key is a shingle hash (16 hex digits) the document
// holds, role "p" when the shingle is in the document's prefix (it probes)
// or "i" when it is not (it is only looked up), and size the number of
// distinct shingles of the document. pairs pairs a probe with every other
// record of its key (probe or not), never two "i" records.

// ContainBand is a parsed containment band record; the slices alias the
// line.
type ContainBand struct {
	Key, ID []byte
	// Probe says the role is "p".
	Probe bool
	// Size is the document's number of distinct shingles.
	Size uint64
}

// ParseContainBand parses a containment band record.
func ParseContainBand(b *ContainBand, line []byte) error {
	key, tail, ok := Cut(line)
	if !ok {
		return Bad("want key TAB id TAB role TAB size (containment band record), found no TAB")
	}
	if len(key) == 0 {
		return Bad("empty key")
	}
	b.Key = key
	return ParseContainTail(b, tail)
}

// ParseContainTail parses what follows the key of a containment band
// record, "id TAB role TAB size" (a band index stores it as the record's
// id), into b's other fields.
func ParseContainTail(b *ContainBand, tail []byte) error {
	var fields [3][]byte
	f, n := SplitN(fields[:0], tail, 3)
	if n != 3 {
		if n == 1 {
			return Bad("want key TAB id TAB role TAB size, found 2 fields: a Jaccard band record among containment band records (band --containment)")
		}
		return Bad("want key TAB id TAB role TAB size, found %d fields", n+1)
	}
	if len(f[0]) == 0 {
		return Bad("empty id")
	}
	b.ID = f[0]
	switch string(f[1]) {
	case "p":
		b.Probe = true
	case "i":
		b.Probe = false
	default:
		return Bad("role %q: want p (probe) or i (index)", clip(f[1]))
	}
	size, ok := ParseUint(f[2])
	if !ok || size == 0 || (len(f[2]) > 1 && f[2][0] == '0') {
		return Bad("size %q: want a positive decimal number of shingles", clip(f[2]))
	}
	b.Size = size
	return nil
}

// AppendContainBand appends the containment band record "key TAB id TAB
// role TAB size".
func AppendContainBand(dst, key, id []byte, probe bool, size uint64) []byte {
	dst = append(dst, key...)
	dst = append(dst, '\t')
	dst = AppendContainTail(dst, id, probe, size)
	return append(dst, '\n')
}

// AppendContainTail appends "id TAB role TAB size", without a line end.
func AppendContainTail(dst, id []byte, probe bool, size uint64) []byte {
	dst = append(dst, id...)
	role := byte('i')
	if probe {
		role = 'p'
	}
	dst = append(dst, '\t', role, '\t')
	return strconv.AppendUint(dst, size, 10)
}
