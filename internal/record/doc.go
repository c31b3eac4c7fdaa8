// Package record reads and writes the line-oriented records that neardup's
// stages pass to one another. It is the only package that knows the layout.
//
// Every record is one line of UTF-8 text ending in LF. Fields are separated by
// one TAB and the key comes first. A field never holds a raw TAB, LF or CR:
// where a document id or a text could hold one it is escaped as \t, \n, \r,
// and a backslash as \\ (Escape, Unescape). Hashes are lower-case hexadecimal,
// 16 digits for 64 bits (AppendHex64, ParseHex64).
//
//	document        id TAB text                  (written by the user)
//	shingles        id TAB h h h …               distinct hashes, ascending; h:c with counts
//	minhash sketch  id TAB size TAB v1 v2 … vn   size = number of distinct shingles
//	simhash sketch  id TAB size TAB fingerprint  16 hex digits, 32 for 128 bits
//	band key        key TAB id                   Hamming tables add TAB fingerprint
//	doc frequency   hash TAB count               a docfreq table, header docs=N
//	candidate pair  idA TAB idB                  idA < idB bytewise, each pair once
//	scored pair     idA TAB idB TAB similarity   (containment both ways when asked)
//	cluster member  cluster TAB id
//	attached pair   idB TAB idA TAB size TAB v v v …
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
//
// A line that begins with "#neardup" is a header (other lines that begin with
// '#' are records: an id may start with it):
//
//	#neardup stage=sketch method=minhash n=128 seed=0 family=mixmuladd64
//
// Each stage copies the headers it reads and adds its own line, so the headers
// of a file name the parameters of every stage that made it. Identical header
// lines are one; two different lines for the same stage mean that records made
// with different parameters are being mixed, and the stage refuses (HeaderSet).
//
// Errors in input carry their place: Error prints as "file:line: message".
package record
