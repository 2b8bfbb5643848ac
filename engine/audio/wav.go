package audio

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/amtstudio/amt/engine/atomicfile"

	goaudio "github.com/go-audio/audio"
	"github.com/go-audio/wav"

	"github.com/amtstudio/amt/engine/synth"
)

// ErrFormat is returned (wrapped) for a WAV file or bit depth this package
// does not handle.
var ErrFormat = errors.New("unsupported WAV format")

// fullScale is the integer that ±1.0 maps to at a bit depth: 2^(bits−1) − 1,
// used both ways so a round trip is exact to half a quantization step.
func fullScale(bits int) float64 { return float64(int64(1)<<(bits-1) - 1) }

// Quantize converts float samples to integers at bits (16 or 24): values
// are clipped to [−1, 1], scaled by 2^(bits−1) − 1 and rounded.
func Quantize(samples []float32, bits int) []int {
	fs := fullScale(bits)
	out := make([]int, len(samples))
	for i, v := range samples {
		x := float64(v)
		switch {
		case x != x: // NaN
			x = 0
		case x > 1:
			x = 1
		case x < -1:
			x = -1
		}
		out[i] = int(math.Round(x * fs))
	}
	return out
}

// WriteWAV writes p as a PCM WAV file of bits 16 or 24, atomically (a
// temporary file beside path, synced, then renamed).
func WriteWAV(path string, p *synth.PCM, bits int) error {
	if bits != 16 && bits != 24 {
		return fmt.Errorf("audio: write %s: %d-bit: %w", path, bits, ErrFormat)
	}
	if p.Channels <= 0 || p.SampleRate <= 0 {
		return fmt.Errorf("audio: write %s: %d channels at %d Hz: %w", path, p.Channels, p.SampleRate, ErrFormat)
	}
	err := atomicfile.Write(path, func(f *os.File) error {
		enc := wav.NewEncoder(f, p.SampleRate, bits, p.Channels, 1)
		buf := &goaudio.IntBuffer{
			Format:         &goaudio.Format{NumChannels: p.Channels, SampleRate: p.SampleRate},
			SourceBitDepth: bits,
		}
		// Write in slices so a long piece does not need a second full copy.
		const chunk = 1 << 16
		for off := 0; off < len(p.Samples); off += chunk {
			buf.Data = Quantize(p.Samples[off:min(off+chunk, len(p.Samples))], bits)
			if err := enc.Write(buf); err != nil {
				return err
			}
		}
		return enc.Close()
	})
	if err != nil {
		return fmt.Errorf("audio: write %s: %w", path, err)
	}
	return nil
}

// ReadWAV reads a PCM WAV file (16, 24 or 32-bit integers) into float
// samples in [−1, 1].
func ReadWAV(path string) (*synth.PCM, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audio: read %s: %w", path, err)
	}
	defer f.Close()
	dec := wav.NewDecoder(f)
	if !dec.IsValidFile() {
		return nil, fmt.Errorf("audio: read %s: not a valid WAV file: %w", path, ErrFormat)
	}
	if dec.WavAudioFormat != 1 {
		return nil, fmt.Errorf("audio: read %s: audio format %d (only integer PCM): %w", path, dec.WavAudioFormat, ErrFormat)
	}
	bits := int(dec.BitDepth)
	if bits != 16 && bits != 24 && bits != 32 {
		return nil, fmt.Errorf("audio: read %s: %d-bit: %w", path, bits, ErrFormat)
	}
	buf, err := dec.FullPCMBuffer()
	if err != nil {
		return nil, fmt.Errorf("audio: read %s: %w", path, err)
	}
	p := &synth.PCM{SampleRate: int(dec.SampleRate), Channels: int(dec.NumChans), Samples: make([]float32, len(buf.Data))}
	fs := fullScale(bits)
	for i, v := range buf.Data {
		p.Samples[i] = float32(max(-1, float64(v)/fs))
	}
	return p, nil
}
