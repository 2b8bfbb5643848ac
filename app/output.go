package app

import (
	"io"
	"os"

	"github.com/amtstudio/amt/engine/atomicfile"
)

// WriteOutput writes a file the user named (a MIDI file, a WAV, a piano
// roll, a report) through write.
func WriteOutput(path string, write func(w io.Writer) error) error {
	return atomicfile.Write(path, func(f *os.File) error { return write(f) })
}

// WriteOutputBytes is WriteOutput for content already in memory.
func WriteOutputBytes(path string, data []byte) error {
	return WriteOutput(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
