//go:build !cgo || !linux

package cuda

import (
	"errors"
	"strings"
	"testing"
)

func TestStubOpen(t *testing.T) {
	_, err := Open(Options{})
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "no cgo") {
		t.Fatalf("err = %v", err)
	}
}
