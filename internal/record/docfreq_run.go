package record

import "encoding/binary"

// ParseDocFreqRun parses the document-frequency table entries at the start
// of data, one a line, as ParseDocFreq parses each line, for as long as they
// are in the form docfreq writes: 16 hex digits, a TAB, a count of 1 to 9
// decimal digits and a line feed. It appends their hashes and counts and
// returns how many bytes of data they took; the caller reads the rest line
// by line (a header, a CR before the line feed, a larger count, an error, a
// last line without a line feed). A table of millions of entries is read
// this way without finding each line's end and then its TAB.
func ParseDocFreqRun(hashes []uint64, counts []uint32, data []byte) ([]uint64, []uint32, int) {
	i := 0
	for len(data)-i >= 19 {
		d := data[i:]
		if d[16] != '\t' {
			break
		}
		hi, ok1 := parseHexWord(binary.BigEndian.Uint64(d), false)
		lo, ok2 := parseHexWord(binary.BigEndian.Uint64(d[8:]), false)
		if !ok1 || !ok2 {
			break
		}
		var c uint32
		j := 17
		for end := min(len(d), 17+9); j < end && d[j]-'0' < 10; j++ {
			c = c*10 + uint32(d[j]-'0')
		}
		if j == 17 || j == len(d) || d[j] != '\n' {
			break
		}
		hashes, counts = append(hashes, uint64(hi)<<32|uint64(lo)), append(counts, c)
		i += j + 1
	}
	return hashes, counts, i
}
