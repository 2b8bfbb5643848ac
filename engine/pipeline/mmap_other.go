//go:build !unix

package pipeline

import "os"

// mapFile reads the whole file where memory maps are not wired up.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	return data, func() error { return nil }, err
}
