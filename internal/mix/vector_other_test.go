//go:build !amd64

package mix

import "testing"

func vectorModes(testing.TB) []func() bool { return []func() bool{func() bool { return false }} }
