// Package cluster is the cluster stage: it groups documents and writes one
// record per document,
//
//	cluster TAB id
//
// by one of three methods.
//
// Components (the default) reads scored or candidate pairs and puts two
// documents in one cluster when a chain of pairs joins them: the connected
// components of the pair graph, found by union-find with path compression
// and union by size. A cluster is named by its smallest id (bytewise, in the
// escaped form ids travel in) and the output is sorted by cluster, then id.
// Only the documents are held (see Components), never the pairs, unless the
// chaining guard or the report asks for the pairs' similarities.
//
// Leader (leader-follower) reads sketches in input order and assigns each at
// once: the leaders of existing clusters that an index proposes (LSH banding
// over the leaders' signatures, so a document is never compared with every
// cluster) are compared with it; it joins the most similar whose estimated
// similarity reaches the threshold, else it becomes the leader of a new
// cluster named by its id. Nothing assigned is revisited. The leaders and
// their index can be saved and restored, so that a later run continues the
// same clustering.
//
// Greedy is Broder's greedy clustering: a table maps each sketch value to the
// clusters whose representative sketch holds it, so that counting, for a new
// document, the values it shares with each cluster needs one table lookup
// per value of its own sketch; it joins the cluster with which it shares the
// largest fraction, if that reaches the threshold. A cluster's
// representative is its first member's sketch or the most frequent values
// among its members' sketches.
package cluster
