package audio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWAVStreamWriter writes the same samples to a file (the header
// patched on Close) and to a stream that cannot seek (the header written
// first). With the exact frame count announced the bytes are identical;
// with more announced, the stream is the file's audio followed by
// silence, and reads back as a valid WAV of the announced length.
func TestWAVStreamWriter(t *testing.T) {
	const rate = 44100
	samples := make([]float32, 2*1001) // odd frame count, 24-bit: odd data, a pad byte
	for i := range samples {
		samples[i] = float32(i%200)/100 - 1
	}
	for _, bits := range []int{16, 24} {
		dir := t.TempDir()
		p := filepath.Join(dir, "file.wav")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWAVWriter(f, rate, 2, bits)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(samples); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		file, _ := os.ReadFile(p)

		var exact bytes.Buffer
		s, err := NewWAVStreamWriter(&exact, rate, 2, bits, 1001)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(samples[:1000]); err != nil { // in two blocks
			t.Fatal(err)
		}
		if err := s.Write(samples[1000:]); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(exact.Bytes(), file) {
			t.Fatalf("%d-bit: stream of the exact length differs from the file (%d vs %d bytes)", bits, exact.Len(), len(file))
		}

		var long bytes.Buffer
		s, _ = NewWAVStreamWriter(&long, rate, 2, bits, 1501)
		s.Write(samples)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		lp := filepath.Join(dir, "long.wav")
		os.WriteFile(lp, long.Bytes(), 0o644)
		pcm, err := ReadWAV(lp)
		if err != nil {
			t.Fatalf("%d-bit: the padded stream does not read back: %v", bits, err)
		}
		if len(pcm.Samples) != 2*1501 {
			t.Fatalf("%d-bit: %d samples, want %d", bits, len(pcm.Samples), 2*1501)
		}
		back, _ := ReadWAV(p)
		for i, v := range back.Samples {
			if pcm.Samples[i] != v {
				t.Fatalf("%d-bit: sample %d is %v, the file's %v", bits, i, pcm.Samples[i], v)
			}
		}
		for i := len(back.Samples); i < len(pcm.Samples); i++ {
			if pcm.Samples[i] != 0 {
				t.Fatalf("%d-bit: padding sample %d is %v, want silence", bits, i, pcm.Samples[i])
			}
		}

		// Past the announced length: refused, not a corrupt stream.
		s, _ = NewWAVStreamWriter(&bytes.Buffer{}, rate, 2, bits, 10)
		if err := s.Write(samples); !errors.Is(err, ErrTooLong) {
			t.Errorf("%d-bit: writing past the header: %v, want ErrTooLong", bits, err)
		}
	}
}
