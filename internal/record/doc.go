// Package record reads and writes the line-oriented records that neardup's
// stages pass to one another. It is the only package that knows the layout.
//
// Every record is one line of UTF-8 text ending in LF. Fields are separated by
// one TAB and the key comes first. A field never holds a raw TAB, LF or CR:
// where a document id or a text could hold one it is escaped as \t, \n, \r,
// and a backslash as \\ (Escape, Unescape). Hashes are lower-case hexadecimal,
// 16 digits for 64 bits (AppendHex64, ParseHex64).
//
//	record            layout                                      parse, append
//	document          id TAB text  (written by the user)          package input
//	shingles          id TAB h h h …  (h:c with counts)           SplitShingles + ParseShingles, AppendShingles
//	minhash sketch    id TAB size TAB v1 v2 … vn                  ParseSketch, AppendSketch
//	simhash sketch    id TAB size TAB fingerprint                 ParseSimSketch, AppendSimSketch
//	band key          key TAB id                                  ParseBand, AppendBand
//	Hamming band key  key TAB id TAB fingerprint                  ParseHammingBand, AppendHammingBand
//	candidate pair    idA TAB idB                                 ParsePair, AppendPair
//	scored pair       idA TAB idB TAB similarity [TAB AB TAB BA]  ParseScored, AppendScored
//	Hamming scored    idA TAB idB TAB distance                    ParseDistance, AppendDistance
//	doc frequency     hash TAB count                              ParseDocFreq, AppendDocFreq
//	query answer      query_id TAB stored_id TAB distance         ParseDistance, AppendDistance
//	cluster member    cluster TAB id                              ParseMember, AppendMember
//	attached pair     idB TAB idA TAB size TAB v v v …            ParseAttached, AppendAttached
//	cluster report    cluster TAB size TAB verified TAB least      ParseClusterReport, AppendClusterReport
//	dropped document  dropped TAB kept TAB via TAB similarity      ParseDropped, AppendDropped
//	part id           doc#START-END  (the id of a part)           ParsePartID, AppendPartID
//	removed part      doc TAB start TAB end TAB bytes             ParseRemoved, AppendRemoved
//	seen part         doc#START-END TAB seen TAB total            ParseSeen, AppendSeen
//	repeated span     doc#START-END TAB count TAB first#START-END ParseSpan, AppendSpan
//
// Shingle hashes are distinct and ascending (AppendShingleCounts writes
// them with counts). A sketch's size is its document's number of distinct
// shingles; a fingerprint has 16 hex digits, 32 for 128 bits. In a
// candidate pair idA < idB bytewise and each pair comes once; a scored pair
// adds the Jaccard similarity and, when asked, the containments of A in B
// and of B in A (6 decimals); verify --hamming and index query give the
// Hamming distance instead. A docfreq table has the header docs=N.
// ParseAnyBand reads the key and id of either kind of band key, and
// ParsePairScore the ids and first score of a candidate or scored pair, for
// stages that take both; Key is the first field of any record.
//
// The attached pair is the intermediate record of verify's join over sorted
// files (verify --attach, then sort, then verify --sorted): a candidate pair
// keyed by the id still to be looked up, idB, carrying the set of the other,
// idA: its shingle hashes as its shingle record has them, size being their
// number, or its sketch's size and values. It always comes with the header
// "#neardup stage=attach values=shingles" (or sketches), and only verify
// --sorted takes it: every other reader refuses input with that header
// (Writer.Header), since an attached pair would pass for a pair idB, idA.
// Document ids are opaque bytes. They travel in their escaped form, and every
// comparison between ids ("idA < idB", "the smallest id") is a bytewise
// comparison of that escaped form, which is the order LC_ALL=C sort gives.
// An id is not empty and holds no escape but \t, \n, \r and \\: every parse
// function of a record with ids refuses the others (CheckID), so that a\qb
// is never taken for a\\qb.
//
// A line that begins with "#neardup" is a header (other lines that begin with
// '#' are records: an id may start with it):
//
//	#neardup stage=sketch method=minhash n=128 seed=0 family=mixmuladd64
//
// No record begins so: an id that begins "#neardup" is written \#neardup
// (EscapeID, UnescapeID), and CheckID refuses it unescaped.
//
// Each stage copies the headers it reads and adds its own line, so the headers
// of a file name the parameters of every stage that made it. Identical header
// lines are one; two different lines for the same stage mean that records made
// with different parameters are being mixed, and the stage refuses (HeaderSet).
//
// Errors in input carry their place: Error prints as "file:line: message".
package record
