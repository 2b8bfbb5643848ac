package userfile

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/amtstudio/amt/internal/fuzzbudget"
)

// FuzzReadAll feeds bytes and a limit to ReadAll, as a regular file and
// as a pipe, and to a WriteAll/ReadAll round trip through the pipe: the
// bytes come back whole when they fit the limit, and ErrTooLarge (no
// bytes) when they do not, for both kinds; nothing waits or panics.
func FuzzReadAll(f *testing.F) {
	f.Add([]byte("MThd"), uint16(4))
	f.Add([]byte("MThd"), uint16(3))
	f.Add([]byte{}, uint16(0))
	f.Add(bytes.Repeat([]byte{1}, 70000), uint16(65535))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		fuzzbudget.Check(t, len(data), func() { fuzzReadAll(t, data, int64(limit)) })
	})
}

func fuzzReadAll(t *testing.T, data []byte, limit int64) {
	check := func(kind string, got []byte, err error) {
		if int64(len(data)) <= limit {
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s of %d bytes, limit %d: %d bytes, %v", kind, len(data), limit, len(got), err)
			}
		} else if !errors.Is(err, ErrTooLarge) || got != nil {
			t.Fatalf("%s of %d bytes, limit %d: %d bytes, %v; want ErrTooLarge", kind, len(data), limit, len(got), err)
		}
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRegular(context.Background(), p, limit)
	check("file", got, err)

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		WriteAll(context.Background(), w, data)
		w.Close()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got, err = ReadAll(ctx, r, "pipe", limit)
	check("pipe", got, err)
}
