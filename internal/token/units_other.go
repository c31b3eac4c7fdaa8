//go:build !amd64

package token

func unitsVector(d []uint64, j int, text []byte, pos int, st *unitState) (read, wrote int) {
	return 0, 0
}
