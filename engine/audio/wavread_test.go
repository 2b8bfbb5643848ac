package audio

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// wavBytes is a PCM WAV file written by hand: a 44-byte header with the
// given fields (dataSize as declared) followed by data.
func wavBytes(format, channels, rate, bits, block int, dataSize uint32, data []byte) []byte {
	le := binary.LittleEndian
	h := make([]byte, 44)
	copy(h, "RIFF")
	le.PutUint32(h[4:], 36+dataSize)
	copy(h[8:], "WAVEfmt ")
	le.PutUint32(h[16:], 16)
	le.PutUint16(h[20:], uint16(format))
	le.PutUint16(h[22:], uint16(channels))
	le.PutUint32(h[24:], uint32(rate))
	le.PutUint32(h[28:], uint32(rate*block))
	le.PutUint16(h[32:], uint16(block))
	le.PutUint16(h[34:], uint16(bits))
	copy(h[36:], "data")
	le.PutUint32(h[40:], dataSize)
	return append(h, data...)
}

// TestReadWAVRefusesBrokenHeadersAndTruncation (issue 37): a data chunk
// cut short is an error naming the file and the bytes missing (a file cut
// in half passed `amt wavcheck` as half as long), and absurd header fields
// are errors naming the field and its value (a sample rate of 0 and 65,535
// channels passed); nothing is allocated from the header's claims.
func TestReadWAVRefusesBrokenHeadersAndTruncation(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 4000) // 1000 frames of 16-bit stereo
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, c := range []struct {
		name, want string
		file       []byte
	}{
		{"half.wav", "2000 bytes missing", wavBytes(1, 2, 44100, 16, 4, 4000, data[:2000])},
		{"one-byte.wav", "1 bytes missing", wavBytes(1, 2, 44100, 16, 4, 4000, data[:3999])},
		{"huge.wav", "4294963000 bytes missing", wavBytes(1, 2, 44100, 16, 4, 4294967000, data)},
		{"rate0.wav", "sample rate 0 Hz", wavBytes(1, 2, 0, 16, 4, 4000, data)},
		{"rate-huge.wav", "sample rate 4000000000 Hz", wavBytes(1, 2, 4000000000, 16, 4, 4000, data)},
		{"chans.wav", "65535 channels", wavBytes(1, 65535, 44100, 16, 65535*2&0xffff, 4000, data)},
		{"chans0.wav", "0 channels", wavBytes(1, 0, 44100, 16, 0, 4000, data)},
		{"block.wav", "block align 3", wavBytes(1, 2, 44100, 16, 3, 4000, data)},
		{"bits.wav", "12-bit", wavBytes(1, 2, 44100, 12, 4, 4000, data)},
		{"float.wav", "audio format 3", wavBytes(3, 2, 44100, 32, 8, 4000, data)},
		{"nodata.wav", "no data chunk", wavBytes(1, 2, 44100, 16, 4, 4000, nil)[:36]},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadWAV(p)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error naming the file and %q", c.name, err, c.want)
		}
		if strings.Contains(c.want, "missing") && !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: %v; want ErrTruncated", c.name, err)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", c.name, a, len(c.file))
		}
		if _, err := OpenWAV(p); err == nil {
			t.Errorf("%s: OpenWAV accepted it", c.name)
		}
	}
	// The same data whole reads back, sample for sample; a chunk before
	// the data, an odd-sized one with its pad byte, is skipped.
	whole := wavBytes(1, 2, 44100, 16, 4, 4000, data)
	list := append([]byte("LIST\x03\x00\x00\x00abc\x00"), whole[36:]...)
	for name, file := range map[string][]byte{"whole.wav": whole, "list.wav": append(append([]byte(nil), whole[:36]...), list...)} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, file, 0o644)
		pcm, err := ReadWAV(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pcm.SampleRate != 44100 || pcm.Channels != 2 || len(pcm.Samples) != 2000 {
			t.Fatalf("%s: %d Hz, %d channels, %d samples", name, pcm.SampleRate, pcm.Channels, len(pcm.Samples))
		}
		for i := range pcm.Samples {
			want := max(-1, float64(int16(binary.LittleEndian.Uint16(data[2*i:])))/32767)
			if float64(pcm.Samples[i]) != float64(float32(want)) {
				t.Fatalf("%s: sample %d is %v, want %v", name, i, pcm.Samples[i], want)
			}
		}
	}
}

// A file larger than ReadWAV holds in memory is refused before it is read
// (a sparse file: the header and a hole); OpenWAV streams it.
func TestReadWAVBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "long.wav")
	n := uint32(MaxReadSamples*2 + 4) // 16-bit mono: one sample past the bound
	if err := os.WriteFile(p, wavBytes(1, 1, 44100, 16, 2, n, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 44+int64(n)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadWAV(p); err == nil || !strings.Contains(err.Error(), "long.wav") || !strings.Contains(err.Error(), "268435458 samples") {
		t.Errorf("ReadWAV: %v; want a refusal naming the file and its samples", err)
	}
	r, err := OpenWAV(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Frames != int64(n/2) {
		t.Errorf("OpenWAV: %d frames, want %d", r.Frames, n/2)
	}
}
