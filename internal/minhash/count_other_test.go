//go:build !amd64

package minhash

import "testing"

func countModes(*testing.T) []func() string {
	return []func() string{func() string { return "probing" }}
}
