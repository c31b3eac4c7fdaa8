//go:build !amd64

package minhash

// bucketTable and its countState are the AVX-512 table of OPH.countSum,
// which this architecture lacks.
type bucketTable struct {
	slots []uint64
	st    countState
}

type countState struct{ zero, crowded uint64 }

func (o *OPH) bucketTable(n int) (bucketTable, bool) { return bucketTable{}, false }

func (t *bucketTable) add(hs, bins []uint64, filled []bool) int { return 0 }

func (t *bucketTable) tally() (count, sum uint64) { return 0, 0 }

func agreementsVector(a, b []byte) (done, differ int) { return 0, 0 }
