package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/go-audio/wav"

	"github.com/amtstudio/amt/engine/atomicfile"
	"github.com/amtstudio/amt/engine/synth"
	"github.com/amtstudio/amt/engine/userfile"
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
		out[i] = quantize(v, fs)
	}
	return out
}

func quantize(v float32, fs float64) int {
	x := float64(v)
	switch {
	case x != x: // NaN
		x = 0
	case x > 1:
		x = 1
	case x < -1:
		x = -1
	}
	return int(math.Round(x * fs))
}

// ErrTooLong is returned (wrapped) when audio would not fit a WAV file:
// its RIFF sizes are 32-bit, so the data holds at most MaxWAVData bytes
// (6 h 45 min of 16-bit stereo at 44.1 kHz, 4 h 30 min at 24-bit).
var ErrTooLong = errors.New("too long for a WAV file")

// MaxWAVData is the most sample bytes a WAV file can hold: the RIFF size
// field (36 + data, plus a pad byte when the data is odd) is a uint32.
const MaxWAVData = 1<<32 - 1 - 36 - 1

// WAVBytes returns the data bytes of frames at channels and bits.
func WAVBytes(frames int64, channels, bits int) int64 {
	return frames * int64(channels) * int64(bits/8)
}

// WAVWriter writes a PCM WAV file block by block, so audio of any length
// streams through a fixed buffer: NewWAVWriter writes the 44-byte header,
// Write appends samples, Close fills in the sizes (and is required).
type WAVWriter struct {
	w        io.Writer
	seeker   io.WriteSeeker // nil for a stream (NewWAVStreamWriter)
	channels int
	bits     int
	fs       float64
	data     int64 // sample bytes written
	declared int64 // a stream's sample bytes, announced in its header
	buf      []byte
}

// NewWAVWriter starts a WAV file on w (at its current offset 0) of
// channels at rate and bits 16 or 24.
func NewWAVWriter(w io.WriteSeeker, rate, channels, bits int) (*WAVWriter, error) {
	if bits != 16 && bits != 24 {
		return nil, fmt.Errorf("%d-bit: %w", bits, ErrFormat)
	}
	if channels < 1 || channels > 8 || rate <= 0 {
		return nil, fmt.Errorf("%d channels at %d Hz: %w", channels, rate, ErrFormat)
	}
	ww := &WAVWriter{w: w, seeker: w, channels: channels, bits: bits, fs: fullScale(bits)}
	if _, err := w.Write(ww.header(rate)); err != nil {
		return nil, err
	}
	return ww, nil
}

// NewWAVStreamWriter starts a WAV file on a stream that cannot seek back
// (a pipe, standard output, a device): the header announces frames frames
// up front, Write must not go past them (ErrTooLong), and Close fills the
// rest with silence, so the stream is a complete, valid WAV file however
// long the audio turns out below its bound. A renderer passes its upper
// bound (synth.Stream.MaxFrames: the music plus at most its MaxTail of
// release), so a stream may end with up to that much more silence than the
// same audio written to a file.
func NewWAVStreamWriter(w io.Writer, rate, channels, bits int, frames int64) (*WAVWriter, error) {
	if bits != 16 && bits != 24 {
		return nil, fmt.Errorf("%d-bit: %w", bits, ErrFormat)
	}
	if channels < 1 || channels > 8 || rate <= 0 {
		return nil, fmt.Errorf("%d channels at %d Hz: %w", channels, rate, ErrFormat)
	}
	declared := WAVBytes(max(frames, 0), channels, bits)
	if declared > MaxWAVData {
		return nil, fmt.Errorf("%d frames: %w", frames, ErrTooLong)
	}
	ww := &WAVWriter{w: w, channels: channels, bits: bits, fs: fullScale(bits), declared: declared}
	ww.data = declared
	h := ww.header(rate)
	ww.data = 0
	if _, err := w.Write(h); err != nil {
		return nil, err
	}
	return ww, nil
}

// header is the RIFF/WAVE header with the sizes of the data so far.
func (w *WAVWriter) header(rate int) []byte {
	h := make([]byte, 44)
	le := binary.LittleEndian
	copy(h, "RIFF")
	le.PutUint32(h[4:], uint32(36+w.data+w.data&1))
	copy(h[8:], "WAVEfmt ")
	le.PutUint32(h[16:], 16)
	le.PutUint16(h[20:], 1) // integer PCM
	le.PutUint16(h[22:], uint16(w.channels))
	le.PutUint32(h[24:], uint32(rate))
	block := w.channels * w.bits / 8
	le.PutUint32(h[28:], uint32(rate*block))
	le.PutUint16(h[32:], uint16(block))
	le.PutUint16(h[34:], uint16(w.bits))
	copy(h[36:], "data")
	le.PutUint32(h[40:], uint32(w.data))
	return h
}

// Write appends interleaved samples (clipped to [−1, 1]; NaN is silence).
// It fails with ErrTooLong rather than write past MaxWAVData.
func (w *WAVWriter) Write(samples []float32) error {
	bps := w.bits / 8
	if w.seeker == nil && w.data+int64(len(samples)*bps) > w.declared {
		return fmt.Errorf("%d bytes of samples: %w (the stream's header announced %d)", w.data+int64(len(samples)*bps), ErrTooLong, w.declared)
	}
	if w.data+int64(len(samples)*bps) > MaxWAVData {
		return fmt.Errorf("%d bytes of samples: %w (at most %d)", w.data+int64(len(samples)*bps), ErrTooLong, int64(MaxWAVData))
	}
	const chunk = 1 << 14
	for off := 0; off < len(samples); off += chunk {
		part := samples[off:min(off+chunk, len(samples))]
		b := w.buf[:0]
		for _, v := range part {
			q := quantize(v, w.fs)
			if bps == 2 {
				b = append(b, byte(q), byte(q>>8))
			} else {
				b = append(b, byte(q), byte(q>>8), byte(q>>16))
			}
		}
		w.buf = b
		if _, err := w.w.Write(b); err != nil {
			return err
		}
		w.data += int64(len(b))
	}
	return nil
}

// Close pads the data to an even length and writes the final sizes into
// the header. It does not close the underlying writer.
func (w *WAVWriter) Close() error {
	if w.seeker == nil { // a stream: silence to the announced length
		zero := make([]byte, 1<<14)
		for w.data < w.declared {
			n, err := w.w.Write(zero[:min(int64(len(zero)), w.declared-w.data)])
			w.data += int64(n)
			if err != nil {
				return err
			}
		}
		if w.data&1 == 1 {
			_, err := w.w.Write([]byte{0})
			return err
		}
		return nil
	}
	if w.data&1 == 1 {
		if _, err := w.w.Write([]byte{0}); err != nil {
			return err
		}
	}
	var sz [4]byte
	binary.LittleEndian.PutUint32(sz[:], uint32(36+w.data+w.data&1))
	if _, err := w.seeker.Seek(4, io.SeekStart); err != nil {
		return err
	}
	if _, err := w.w.Write(sz[:]); err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(sz[:], uint32(w.data))
	if _, err := w.seeker.Seek(40, io.SeekStart); err != nil {
		return err
	}
	if _, err := w.w.Write(sz[:]); err != nil {
		return err
	}
	_, err := w.seeker.Seek(0, io.SeekEnd)
	return err
}

// WriteWAV writes p as a PCM WAV file of bits 16 or 24, atomically (a
// temporary file beside path, synced, then renamed).
func WriteWAV(path string, p *synth.PCM, bits int) error {
	if p.Channels <= 0 || p.SampleRate <= 0 {
		return fmt.Errorf("audio: write %s: %d channels at %d Hz: %w", path, p.Channels, p.SampleRate, ErrFormat)
	}
	err := atomicfile.Write(path, func(f *os.File) error {
		w, err := NewWAVWriter(f, p.SampleRate, p.Channels, bits)
		if err != nil {
			return err
		}
		if err := w.Write(p.Samples); err != nil {
			return err
		}
		return w.Close()
	})
	if err != nil {
		return fmt.Errorf("audio: write %s: %w", path, err)
	}
	return nil
}

// ReadWAV reads a PCM WAV file (16, 24 or 32-bit integers) into float
// samples in [−1, 1].
func ReadWAV(path string) (*synth.PCM, error) {
	f, _, err := userfile.OpenRegular(path) // the decoder seeks: a stream is refused, never waited on
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
