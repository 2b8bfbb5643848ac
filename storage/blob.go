package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/userfile"
)

// TempSuffix marks files being written; Open removes any left by a crash.
const TempSuffix = atomicfile.TempSuffix

// WriteFileAtomic writes data to path through a temp file in the same
// folder, fsyncs it, renames it into place and fsyncs the folder, so a
// crash leaves either the old file or the new one. It returns the hex
// SHA-256 of data.
func WriteFileAtomic(path string, data []byte) (string, error) {
	err := writeAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), nil
}

func writeAtomic(path string, write func(w io.Writer) error) error {
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = atomicfile.Write(path, func(f *os.File) error { return write(f) })
	}
	if err != nil {
		return fmt.Errorf("storage: write %s: %w", path, err)
	}
	return nil
}

// HashFile returns the hex SHA-256 of a file's content.
func HashFile(path string) (string, error) {
	f, _, err := userfile.OpenRegular(path) // never a FIFO's open(2), nor /dev/zero's endless read
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("storage: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
