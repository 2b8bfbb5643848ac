package audio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

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

// Limits of reading a WAV file. The header's fields are checked against
// them before anything is allocated, and the data against the file's own
// size: a header cannot make a reader allocate or wait.
const (
	// MaxWAVChannels bounds a file's channels (22.2 surround has 24).
	MaxWAVChannels = 32
	// MinWAVRate and MaxWAVRate bound its sample rate (768 kHz is the
	// highest rate converters record).
	MinWAVRate = 1000
	MaxWAVRate = 768000
	// MaxReadSamples bounds ReadWAV, which holds the audio in memory as
	// float32: 1 GiB, 50 min of 44.1 kHz stereo. OpenWAV reads any length
	// block by block.
	MaxReadSamples = 1 << 28
)

// ErrTruncated is returned (wrapped) for a WAV file whose data chunk
// declares more bytes than the file holds; the error says how many are
// missing.
var ErrTruncated = errors.New("truncated WAV file")

// WAVReader reads the samples of a PCM WAV file (16, 24 or 32-bit
// integers) block by block, as float samples in [−1, 1].
type WAVReader struct {
	SampleRate int
	Channels   int
	Bits       int
	Frames     int64 // whole frames in the data chunk

	f    *os.File
	r    *bufio.Reader
	left int64 // frames not read yet
	buf  []byte
}

// OpenWAV opens a PCM WAV file and checks its header: RIFF/WAVE with a
// "fmt " chunk before the "data" chunk (other chunks are skipped), integer
// PCM of 16, 24 or 32 bits, 1 to MaxWAVChannels channels, a sample rate of
// MinWAVRate to MaxWAVRate, a block align that fits them, and a data chunk
// the file holds whole (ErrTruncated names the bytes missing; a size of
// 0xFFFFFFFF, which streaming writers leave, means to the end of the
// file). Errors name the file and the field; they wrap ErrFormat or
// ErrTruncated, or the open's error.
func OpenWAV(path string) (*WAVReader, error) {
	f, fi, err := userfile.OpenRegular(path) // a stream is refused, never waited on
	if err != nil {
		return nil, fmt.Errorf("audio: read %s: %w", path, err)
	}
	r, err := openWAV(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audio: read %s: %w", path, err)
	}
	return r, nil
}

func openWAV(f *os.File, size int64) (*WAVReader, error) {
	le := binary.LittleEndian
	var h [16]byte
	if _, err := io.ReadFull(f, h[:12]); err != nil || string(h[:4]) != "RIFF" || string(h[8:12]) != "WAVE" {
		return nil, fmt.Errorf("not a valid WAV file: %w", ErrFormat)
	}
	var w *WAVReader
	for off := int64(12); off+8 <= size; {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
		if _, err := io.ReadFull(f, h[:8]); err != nil {
			return nil, err
		}
		id, n := string(h[:4]), int64(le.Uint32(h[4:8]))
		switch id {
		case "fmt ":
			if n < 16 || off+8+16 > size {
				return nil, fmt.Errorf("a %d-byte fmt chunk: %w", n, ErrFormat)
			}
			if _, err := io.ReadFull(f, h[:16]); err != nil {
				return nil, err
			}
			var err error
			if w, err = checkFmt(h[:16]); err != nil {
				return nil, err
			}
		case "data":
			if w == nil {
				return nil, fmt.Errorf("a data chunk before the fmt chunk: %w", ErrFormat)
			}
			present := size - off - 8
			if n == 0xFFFFFFFF { // a stream's writer did not know the size
				n = present
			}
			if n > present {
				return nil, fmt.Errorf("%w: the data chunk declares %d bytes, the file holds %d: %d bytes missing", ErrTruncated, n, present, n-present)
			}
			block := int64(w.Channels * w.Bits / 8)
			w.Frames, w.left = n/block, n/block
			w.f, w.r = f, bufio.NewReaderSize(f, 1<<16)
			return w, nil
		}
		off += 8 + n + n&1 // chunks are padded to an even size
	}
	return nil, fmt.Errorf("no data chunk: %w", ErrFormat)
}

// checkFmt reads the 16 bytes of a fmt chunk.
func checkFmt(b []byte) (*WAVReader, error) {
	le := binary.LittleEndian
	format, channels, rate := le.Uint16(b[0:]), int(le.Uint16(b[2:])), int64(le.Uint32(b[4:]))
	block, bits := int(le.Uint16(b[12:])), int(le.Uint16(b[14:]))
	switch {
	case format != 1:
		return nil, fmt.Errorf("audio format %d (only integer PCM): %w", format, ErrFormat)
	case bits != 16 && bits != 24 && bits != 32:
		return nil, fmt.Errorf("%d-bit (16, 24 or 32): %w", bits, ErrFormat)
	case channels < 1 || channels > MaxWAVChannels:
		return nil, fmt.Errorf("%d channels (allowed 1 to %d): %w", channels, MaxWAVChannels, ErrFormat)
	case rate < MinWAVRate || rate > MaxWAVRate:
		return nil, fmt.Errorf("sample rate %d Hz (allowed %d to %d): %w", rate, MinWAVRate, MaxWAVRate, ErrFormat)
	case block != channels*bits/8:
		return nil, fmt.Errorf("block align %d (%d channels of %d bits are %d bytes): %w", block, channels, bits, channels*bits/8, ErrFormat)
	}
	return &WAVReader{SampleRate: int(rate), Channels: channels, Bits: bits}, nil
}

// Read fills dst with the next whole frames (len(dst) rounded down to a
// multiple of Channels) and returns the samples read; io.EOF after the
// last. A file that ends early is io.ErrUnexpectedEOF.
func (w *WAVReader) Read(dst []float32) (int, error) {
	frames := min(int64(len(dst)/w.Channels), w.left)
	if frames == 0 {
		if w.left == 0 {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("audio: read: a block shorter than a frame (%d channels)", w.Channels)
	}
	bps := w.Bits / 8
	n := int(frames) * w.Channels
	if cap(w.buf) < n*bps {
		w.buf = make([]byte, n*bps)
	}
	b := w.buf[:n*bps]
	if _, err := io.ReadFull(w.r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the file shrank since it was opened
		}
		return 0, fmt.Errorf("audio: read: %w", err)
	}
	fs := fullScale(w.Bits)
	for i := range n {
		var v int32
		switch bps {
		case 2:
			v = int32(int16(binary.LittleEndian.Uint16(b[2*i:])))
		case 3:
			v = int32(uint32(b[3*i])<<8|uint32(b[3*i+1])<<16|uint32(b[3*i+2])<<24) >> 8
		default:
			v = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		dst[i] = float32(max(-1, float64(v)/fs))
	}
	w.left -= frames
	return n, nil
}

// Close closes the file.
func (w *WAVReader) Close() error { return w.f.Close() }

// ReadWAV reads a PCM WAV file (16, 24 or 32-bit integers, checked as
// OpenWAV does) into float samples in [−1, 1], at most MaxReadSamples.
func ReadWAV(path string) (*synth.PCM, error) {
	w, err := OpenWAV(path)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	n := w.Frames * int64(w.Channels)
	if n > MaxReadSamples {
		return nil, fmt.Errorf("audio: read %s: %d samples, more than the %d read into memory (%.0f s at %d Hz)",
			path, n, MaxReadSamples, float64(w.Frames)/float64(w.SampleRate), w.SampleRate)
	}
	p := &synth.PCM{SampleRate: w.SampleRate, Channels: w.Channels, Samples: make([]float32, n)}
	for done := 0; done < len(p.Samples); {
		k, err := w.Read(p.Samples[done:min(len(p.Samples), done+1<<16)])
		if err != nil {
			return nil, fmt.Errorf("audio: read %s: %w", path, err)
		}
		done += k
	}
	return p, nil
}
