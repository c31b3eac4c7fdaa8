package record

import (
	"bytes"
	"math"
	"slices"
	"strconv"
)

// This file holds the parse and append functions of the records that are
// not shingles or sketches (parse.go, simhash.go): band keys, pairs, scored
// pairs, document frequencies, query answers, cluster members and attached
// pairs. Parse functions take a line without its line end and return
// sub-slices of it; append functions write one record and its LF.

// Key returns the first field of a record: a document's id, a band key, the
// first id of a pair. A line without a TAB is all key.
func Key(line []byte) []byte {
	if i := bytes.IndexByte(line, '\t'); i >= 0 {
		return line[:i]
	}
	return line
}

// SplitShingles splits a shingle record "id TAB h h h …" into its id and its
// hash field, for ParseShingles.
func SplitShingles(line []byte) (id, field []byte, err error) {
	i := bytes.IndexByte(line, '\t')
	if i < 0 {
		return nil, nil, Bad("want id TAB shingle hashes, found no TAB")
	}
	if err := CheckID(line[:i]); err != nil {
		return nil, nil, err
	}
	return line[:i], line[i+1:], nil
}

// AppendShingles appends the shingle record "id TAB h h h …" of hashes,
// distinct and ascending.
func AppendShingles(dst, id []byte, hashes []uint64) []byte {
	dst = append(dst, id...)
	dst = append(dst, '\t')
	if len(hashes) == 0 {
		return append(dst, '\n')
	}
	n := len(dst)
	dst = slices.Grow(dst, 17*len(hashes))[:n+17*len(hashes)]
	putHexList(dst[n:], hashes) // "h h … h "
	dst[len(dst)-1] = '\n'
	return dst
}

// AppendShingleCounts appends the shingle record "id TAB h:c h:c …" of
// hashes, ascending with repeats: each distinct hash once, c its number of
// repeats.
func AppendShingleCounts(dst, id []byte, hashes []uint64) []byte {
	dst = append(dst, id...)
	dst = append(dst, '\t')
	for i := 0; i < len(hashes); {
		j := i + 1
		for j < len(hashes) && hashes[j] == hashes[i] {
			j++
		}
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = AppendHex64(dst, hashes[i])
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(j-i), 10)
		i = j
	}
	return append(dst, '\n')
}

// ParseBand parses a band record "key TAB id". A trailing empty field, as
// Hadoop Streaming writes, is accepted; a Hamming band record, with its
// fingerprint, is not.
func ParseBand(line []byte) (key, id []byte, err error) {
	var fields [2][]byte
	f, n := SplitN(fields[:0], line, 2)
	if n != 2 {
		if n == 3 {
			return nil, nil, Bad("want key TAB id, found 3 fields (Hamming band records, with a fingerprint, go to index)")
		}
		return nil, nil, Bad("want key TAB id, found %d field(s)", n)
	}
	if len(f[0]) == 0 {
		return nil, nil, Bad("empty key")
	}
	if err := CheckID(f[1]); err != nil {
		return nil, nil, err
	}
	return f[0], f[1], nil
}

// ParseAnyBand parses the key and id of a band record of either kind, "key
// TAB id" or "key TAB id TAB fingerprint": what follows the id is not read.
func ParseAnyBand(line []byte) (key, id []byte, err error) {
	key, id, ok := Cut(line)
	if !ok {
		return nil, nil, Bad("want key TAB id, found no TAB")
	}
	if i := bytes.IndexByte(id, '\t'); i >= 0 {
		id = id[:i]
	}
	if len(key) == 0 {
		return nil, nil, Bad("empty key")
	}
	if err := CheckID(id); err != nil {
		return nil, nil, err
	}
	return key, id, nil
}

// checkIDs checks the two ids of a pair (CheckID).
func checkIDs(a, b []byte) error {
	if err := CheckID(a); err != nil {
		return err
	}
	return CheckID(b)
}

// AppendBand appends the band record "key TAB id".
func AppendBand(dst, key, id []byte) []byte {
	dst = append(dst, key...)
	dst = append(dst, '\t')
	dst = append(dst, id...)
	return append(dst, '\n')
}

// AppendHammingBand appends the Hamming band record "key TAB id TAB
// fingerprint", the fingerprint of f bits (AppendFingerprint).
func AppendHammingBand(dst, key, id []byte, hi, lo uint64, f int) []byte {
	dst = append(dst, key...)
	dst = append(dst, '\t')
	dst = append(dst, id...)
	dst = append(dst, '\t')
	dst = AppendFingerprint(dst, hi, lo, f)
	return append(dst, '\n')
}

// ParsePair parses a candidate pair "idA TAB idB". The empty last field
// Hadoop Streaming adds is accepted.
func ParsePair(line []byte) (a, b []byte, err error) {
	a, b, ok := Cut(line)
	if !ok {
		return nil, nil, Bad("want idA TAB idB, found no TAB")
	}
	if i := bytes.IndexByte(b, '\t'); i >= 0 {
		if i != len(b)-1 {
			return nil, nil, Bad("want idA TAB idB, found more fields")
		}
		b = b[:i]
	}
	if err := checkIDs(a, b); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// AppendPair appends the candidate pair "idA TAB idB".
func AppendPair[ID ~string | ~[]byte](dst []byte, a, b ID) []byte {
	dst = append(dst, a...)
	dst = append(dst, '\t')
	dst = append(dst, b...)
	return append(dst, '\n')
}

// ParsePairScore parses the ids of a candidate or scored pair, "idA TAB idB
// [TAB similarity …]", and returns its first score field, empty when there
// is none. The fields after it are not read.
func ParsePairScore(line []byte) (a, b, score []byte, err error) {
	a, rest, ok := Cut(line)
	if !ok {
		return nil, nil, nil, Bad("want idA TAB idB [TAB similarity …], found no TAB")
	}
	b, rest, ok = Cut(rest)
	if ok {
		score, _, _ = Cut(rest)
	}
	if err := checkIDs(a, b); err != nil {
		return nil, nil, nil, err
	}
	return a, b, score, nil
}

// ParseScore parses a similarity field: a number from 0 to 1.
func ParseScore(field []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(field), 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, Bad("similarity %q: want a number from 0 to 1", field)
	}
	return v, nil
}

// AppendScore appends a similarity with 6 decimals.
func AppendScore(dst []byte, v float64) []byte {
	return strconv.AppendFloat(dst, v, 'f', 6, 64)
}

// Scored is a parsed scored pair.
type Scored struct {
	A, B []byte
	// J is the Jaccard similarity of A and B.
	J float64
	// Containment is set when the record carries AB, the containment of A
	// in B, and BA, that of B in A.
	Containment bool
	AB, BA      float64
}

// ParseScored parses a scored pair, "idA TAB idB TAB similarity" or, with
// containment, "idA TAB idB TAB similarity TAB containment TAB containment".
// The ids alias line.
func ParseScored(s *Scored, line []byte) error {
	var buf [5][]byte
	f, n := SplitN(buf[:0], line, 5)
	if n != 3 && n != 5 {
		return Bad("want idA TAB idB TAB similarity [TAB containment TAB containment], found %d field(s)", n)
	}
	if err := checkIDs(f[0], f[1]); err != nil {
		return err
	}
	*s = Scored{A: f[0], B: f[1], Containment: n == 5}
	var err error
	if s.J, err = ParseScore(f[2]); err != nil {
		return err
	}
	if n == 5 {
		if s.AB, err = ParseScore(f[3]); err != nil {
			return err
		}
		if s.BA, err = ParseScore(f[4]); err != nil {
			return err
		}
	}
	return nil
}

// AppendScored appends the scored pair of a and b with their Jaccard
// similarity j and, when containment is set, the containments cab of a in
// b and cba of b in a. Scores have 6 decimals.
func AppendScored(dst, a, b []byte, j, cab, cba float64, containment bool) []byte {
	dst = append(dst, a...)
	dst = append(dst, '\t')
	dst = append(dst, b...)
	dst = append(dst, '\t')
	dst = AppendScore(dst, j)
	if containment {
		dst = append(dst, '\t')
		dst = AppendScore(dst, cab)
		dst = append(dst, '\t')
		dst = AppendScore(dst, cba)
	}
	return append(dst, '\n')
}

// ParseDistance parses a record of two ids and the Hamming distance of
// their fingerprints: a scored pair of verify --hamming, "idA TAB idB TAB
// distance", or a query answer of index query, "query_id TAB stored_id TAB
// distance". The ids alias line.
func ParseDistance(line []byte) (a, b []byte, d int, err error) {
	var buf [3][]byte
	f, n := SplitN(buf[:0], line, 3)
	if n != 3 {
		return nil, nil, 0, Bad("want id TAB id TAB distance, found %d field(s)", n)
	}
	if err := checkIDs(f[0], f[1]); err != nil {
		return nil, nil, 0, err
	}
	v, ok := ParseUint(f[2])
	if !ok {
		return nil, nil, 0, Bad("distance %q is not a number", clip(f[2]))
	}
	return f[0], f[1], int(v), nil
}

// AppendDistance appends a scored pair of verify --hamming or a query
// answer: "a TAB b TAB d".
func AppendDistance(dst, a, b []byte, d int) []byte {
	dst = append(dst, a...)
	dst = append(dst, '\t')
	dst = append(dst, b...)
	dst = append(dst, '\t')
	dst = strconv.AppendInt(dst, int64(d), 10)
	return append(dst, '\n')
}

// ParseDocFreq parses a document-frequency table entry "hash TAB count".
func ParseDocFreq(line []byte) (hash, count uint64, err error) {
	hf, cf, ok := Cut(line)
	if !ok {
		return 0, 0, Bad("want hash TAB count, found no TAB")
	}
	h, ok := ParseHex64(hf)
	if !ok {
		return 0, 0, Bad("hash %q: want 16 hex digits", hf)
	}
	c, ok := ParseUint(cf)
	if !ok {
		return 0, 0, Bad("count %q is not a number", cf)
	}
	return h, c, nil
}

// AppendDocFreq appends the document-frequency table entry "hash TAB count".
func AppendDocFreq(dst []byte, hash, count uint64) []byte {
	dst = AppendHex64(dst, hash)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, count, 10)
	return append(dst, '\n')
}

// ParseMember parses a cluster member "cluster TAB id". A trailing empty
// field, as Hadoop Streaming writes, is accepted.
func ParseMember(line []byte) (cluster, id []byte, err error) {
	var fields [2][]byte
	f, n := SplitN(fields[:0], line, 2)
	if n != 2 {
		return nil, nil, Bad("want cluster TAB id, found %d field(s)", n)
	}
	if len(f[0]) == 0 || len(f[1]) == 0 {
		return nil, nil, Bad("empty cluster or id")
	}
	if err := checkIDs(f[0], f[1]); err != nil {
		return nil, nil, err
	}
	return f[0], f[1], nil
}

// AppendMember appends the cluster member "cluster TAB id".
func AppendMember(dst, cluster, id []byte) []byte {
	dst = append(dst, cluster...)
	dst = append(dst, '\t')
	dst = append(dst, id...)
	return append(dst, '\n')
}

// ClusterReport is a line of cluster --report: a cluster, its number of
// members other than the representative, how many of those have a verified
// pair with it, and the least similarity of those pairs (NaN when none).
type ClusterReport struct {
	Cluster        []byte
	Size, Verified uint64
	Least          float64
}

// ParseClusterReport parses "cluster TAB size TAB verified TAB
// min-similarity", the similarity "-" when no member is verified.
func ParseClusterReport(r *ClusterReport, line []byte) error {
	var buf [4][]byte
	f, n := SplitN(buf[:0], line, 4)
	if n != 4 {
		return Bad("want cluster TAB size TAB verified TAB min-similarity, found %d field(s)", n)
	}
	if len(f[0]) == 0 {
		return Bad("empty cluster")
	}
	if err := CheckID(f[0]); err != nil {
		return err
	}
	r.Cluster = f[0]
	var ok bool
	if r.Size, ok = ParseUint(f[1]); !ok {
		return Bad("size %q is not a number", f[1])
	}
	if r.Verified, ok = ParseUint(f[2]); !ok || r.Verified > r.Size {
		return Bad("verified %q: want a number up to the size", f[2])
	}
	var err error
	r.Least, err = ParseSimilarity(f[3])
	return err
}

// AppendClusterReport appends a line of cluster --report.
func AppendClusterReport(dst []byte, r ClusterReport) []byte {
	dst = append(dst, r.Cluster...)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, r.Size, 10)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, r.Verified, 10)
	dst = append(dst, '\t')
	dst = AppendSimilarity(dst, r.Least)
	return append(dst, '\n')
}

// ParseSimilarity parses a similarity field that AppendSimilarity wrote:
// a number from 0 to 1, or "-" (NaN: no similarity known).
func ParseSimilarity(field []byte) (float64, error) {
	if string(field) == "-" {
		return math.NaN(), nil
	}
	return ParseScore(field)
}

// AppendSimilarity appends a similarity with 6 decimals, or "-" for NaN
// (no similarity known).
func AppendSimilarity(dst []byte, v float64) []byte {
	if math.IsNaN(v) {
		return append(dst, '-')
	}
	return AppendScore(dst, v)
}

// Dropped is a line of keep --report: a document dropped, the kept
// document its chain ends at, the earlier document it was dropped for, and
// their similarity (NaN when not known: a cluster file says none).
//
// When the ids are arrival numbers (keep of numbered documents), the
// documents' own ids (the ids they have without --number-from) follow:
// Own holds those of dropped, kept and via ("-" for one not known), and a
// line has 7 fields; Own nil writes and parses the 4.
type Dropped struct {
	Dropped, Kept, Via []byte
	Similarity         float64
	Own                [][]byte
}

// ParseDropped parses "dropped TAB kept TAB via TAB similarity", the
// similarity "-" when not known. The ids alias line.
func ParseDropped(r *Dropped, line []byte) error {
	var buf [7][]byte
	f, n := SplitN(buf[:0], line, 7)
	if n != 4 && n != 7 {
		return Bad("want dropped TAB kept TAB via TAB similarity, and with arrival numbers the three own ids, found %d field(s)", n)
	}
	r.Own = nil
	if n == 7 {
		r.Own = f[4:7]
	}
	for i, what := range []string{"dropped", "kept", "via"} {
		if len(f[i]) == 0 {
			return Bad("empty %s id", what)
		}
		if err := CheckID(f[i]); err != nil {
			return err
		}
	}
	r.Dropped, r.Kept, r.Via = f[0], f[1], f[2]
	var err error
	r.Similarity, err = ParseSimilarity(f[3])
	return err
}

// AppendDropped appends a line of keep --report.
func AppendDropped(dst []byte, r Dropped) []byte {
	dst = append(dst, r.Dropped...)
	dst = append(dst, '\t')
	dst = append(dst, r.Kept...)
	dst = append(dst, '\t')
	dst = append(dst, r.Via...)
	dst = append(dst, '\t')
	dst = AppendSimilarity(dst, r.Similarity)
	for _, id := range r.Own {
		dst = append(dst, '\t')
		dst = append(dst, id...)
	}
	return append(dst, '\n')
}

// ParseAttached parses an attached pair "idB TAB idA TAB size TAB values"
// (see the package doc). The values field is returned as written: shingle
// hashes or sketch values, as the header says. The ids and values alias
// line.
func ParseAttached(line []byte) (b, a []byte, size uint64, values []byte, err error) {
	var buf [4][]byte
	f, n := SplitN(buf[:0], line, 4)
	if n != 4 {
		return nil, nil, 0, nil, Bad("want idB TAB idA TAB size TAB values (an attached pair), found %d fields", n)
	}
	if err := checkIDs(f[0], f[1]); err != nil {
		return nil, nil, 0, nil, err
	}
	if bytes.Equal(f[0], f[1]) {
		return nil, nil, 0, nil, Bad("a pair of %s with itself", f[1])
	}
	size, ok := ParseUint(f[2])
	if !ok {
		return nil, nil, 0, nil, Bad("size %q is not a number", f[2])
	}
	return f[0], f[1], size, f[3], nil
}

// AppendAttached appends the attached pair "idB TAB idA TAB size TAB
// values", values being the field of A's shingle or sketch record.
func AppendAttached(dst, b, a []byte, size uint64, values []byte) []byte {
	dst = append(dst, b...)
	dst = append(dst, '\t')
	dst = append(dst, a...)
	dst = append(dst, '\t')
	dst = strconv.AppendUint(dst, size, 10)
	dst = append(dst, '\t')
	dst = append(dst, values...)
	return append(dst, '\n')
}
