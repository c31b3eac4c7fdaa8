// Package bandindex is a stored index of MinHash band keys, so that new
// documents are checked against everything seen before without the old
// ones being recomputed (pairs --against), then merged in.
//
// It is a log-structured set of sorted runs in a directory:
//
//	MANIFEST     the version, the parameters (the header lines of the
//	             records it was built from: shingle, sketch and band), the
//	             runs with their sizes and checksums, and its own checksum
//	000001.run   a run: band records (key, id), sorted by key then id
//	             bytewise, each once, in zstd-compressed blocks of about
//	             64 KiB (keys share their prefix with the one before);
//	             a footer lists the first key of every block
//	LOCK         held (flock) by the command changing the index
//
// build writes a new index from a batch of band records, add writes a
// batch as new runs, merge merges the newest runs into one. A batch
// larger than the memory given (Options.MemoryBytes) becomes several runs.
// Records are never removed: a record stored twice (in two runs) counts
// once when looked up, and merge keeps it once.
//
// An index may have more runs than files can be open at once: merge then
// merges in rounds, and the readers merge the newest runs into a temporary
// run first (rounds.go).
//
// Reading: an open index holds the block index of each run (the first key
// and place of every block, about 70 bytes per block of some 3000 records).
// A Lookup answers keys asked for in ascending order, each run read forward
// through a cursor holding one decompressed block: blocks that hold no key
// asked for are passed over unread. Every block carries a checksum, checked
// when it is read; the footer of a run and the manifest carry theirs,
// checked when the index is opened, and the manifest names each run's size
// and footer checksum.
//
// Writing never changes a file the manifest names: new runs are written
// beside the old ones and a new manifest replaces the old one by a rename
// (write.go), so that a crash at any step leaves the previous index
// readable, or the new one once the rename is done.
package bandindex
