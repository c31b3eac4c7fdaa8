//go:build !amd64

package token

import "testing"

func unitsModes(*testing.T) []func() bool {
	return []func() bool{func() bool { return false }}
}
