package audio

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hajimehoshi/oto/v2"

	"github.com/amtstudio/amt/engine/synth"
)

// ErrNoDevice is returned when no sound card can be opened.
var ErrNoDevice = errors.New("no audio device: export WAV instead")

// DeviceRate is the sample rate of the app's one output context. PCM at
// another rate is resampled on the fly (linear interpolation).
const DeviceRate = 44100

// readyTimeout bounds the wait for the driver to open the device.
const readyTimeout = 5 * time.Second

var (
	ctxOnce sync.Once
	otoCtx  *oto.Context
	ctxErr  error

	playingMu sync.Mutex
	playing   int // players currently playing; the context is suspended at 0
)

// device opens the app's one oto context on first use. oto reports a
// missing sound card only through Context.Err after ready, so both are
// checked.
func device() (*oto.Context, error) {
	ctxOnce.Do(func() {
		quietDriver()
		c, ready, err := oto.NewContextWithOptions(&oto.NewContextOptions{
			SampleRate: DeviceRate, ChannelCount: 2, Format: oto.FormatFloat32LE, BufferSize: 80 * time.Millisecond,
		})
		if err != nil {
			ctxErr = fmt.Errorf("%w (%v)", ErrNoDevice, err)
			return
		}
		select {
		case <-ready:
		case <-time.After(readyTimeout):
			ctxErr = fmt.Errorf("%w (the device did not open within %v)", ErrNoDevice, readyTimeout)
			return
		}
		if err := c.Err(); err != nil {
			ctxErr = fmt.Errorf("%w (%v)", ErrNoDevice, err)
			return
		}
		otoCtx = c
		// Nothing plays yet: suspend, or oto's writer loop keeps a core busy.
		c.Suspend()
	})
	return otoCtx, ctxErr
}

// Available reports whether a sound device could be opened, and why not.
func Available() error {
	_, err := device()
	return err
}

func startedPlaying(c *oto.Context) {
	playingMu.Lock()
	defer playingMu.Unlock()
	if playing++; playing == 1 {
		c.Resume()
	}
}

func stoppedPlaying(c *oto.Context) {
	playingMu.Lock()
	defer playingMu.Unlock()
	if playing > 0 {
		if playing--; playing == 0 {
			c.Suspend()
		}
	}
}

// Player plays one clip: a PCM in memory or a synth.Stream rendered block
// by block as it plays (memory constant however long the piece). Its
// methods are safe for concurrent use (the GUI's buttons and its playhead
// timer call them from different goroutines).
type Player struct {
	ctx    *oto.Context
	src    source
	rate   int     // source frames per second
	frames int64   // source length in frames
	step   float64 // source frames per device frame
	op     oto.Player
	mu     sync.Mutex
	on     bool // counted in playing
}

// source serves a clip to oto as float32 little-endian stereo frames at
// DeviceRate (io.Seeker in bytes of device frames).
type source interface {
	io.ReadSeeker
	played() int64 // device frames handed out
	ended() bool   // the last Read reached the end
}

// NewPlayer prepares pcm for playback. It returns ErrNoDevice (wrapped,
// with the driver's reason) when there is no sound card.
func NewPlayer(pcm *synth.PCM) (*Player, error) {
	if pcm == nil || pcm.Channels < 1 || pcm.Channels > 2 || pcm.SampleRate <= 0 {
		return nil, fmt.Errorf("audio: play: need mono or stereo PCM with a sample rate: %w", ErrFormat)
	}
	step := float64(pcm.SampleRate) / DeviceRate
	return newPlayer(&pcmReader{pcm: pcm, step: step}, pcm.SampleRate, int64(pcm.Frames()))
}

// NewStreamPlayer plays st, rendering it on the driver's goroutine a block
// at a time as the device asks (the synthesizers run far faster than real
// time). Duration is the stream's Length (the last note-off); release tails
// play on past it. The Player owns st from here on.
func NewStreamPlayer(st *synth.Stream) (*Player, error) {
	if st == nil || st.SampleRate() <= 0 {
		return nil, fmt.Errorf("audio: play: need a stream with a sample rate: %w", ErrFormat)
	}
	step := float64(st.SampleRate()) / DeviceRate
	return newPlayer(&streamReader{st: st, step: step, start: st.Position()}, st.SampleRate(), st.Length())
}

func newPlayer(src source, rate int, frames int64) (*Player, error) {
	c, err := device()
	if err != nil {
		return nil, err
	}
	p := &Player{ctx: c, src: src, rate: rate, frames: frames, step: float64(rate) / DeviceRate}
	p.op = c.NewPlayer(p.src)
	if bs, ok := p.op.(oto.BufferSizeSetter); ok {
		bs.SetBufferSize(DeviceRate * 8 / 10) // 0.1 s of stereo float32
	}
	return p, nil
}

// Play starts or resumes playback.
func (p *Player) Play() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on {
		p.on = true
		startedPlaying(p.ctx)
	}
	p.op.Play()
}

// Pause pauses playback, keeping the position.
func (p *Player) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.op.Pause()
	p.idle()
}

// idle uncounts the player; p.mu is held.
func (p *Player) idle() {
	if p.on {
		p.on = false
		stoppedPlaying(p.ctx)
	}
}

// Stop stops playback and rewinds to the start.
func (p *Player) Stop() {
	p.Pause()
	p.Seek(0)
}

// Seek moves the playhead to d (clamped to the clip).
func (p *Player) Seek(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	frame := int64(d.Seconds() * float64(p.rate))
	frame = min(max(frame, 0), p.frames)
	if s, ok := p.op.(io.Seeker); ok {
		// The oto player drops its buffer and seeks our reader (in bytes of
		// device frames).
		s.Seek(int64(math.Round(float64(frame)/p.step))*8, io.SeekStart)
	}
}

// Position returns the playhead: what has been heard, not what was read
// ahead into the driver's buffer.
func (p *Player) Position() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	devFrames := float64(p.src.played()) - float64(p.op.UnplayedBufferSize())/8
	sec := max(0, devFrames*p.step/float64(p.rate))
	return time.Duration(min(sec, p.seconds()) * float64(time.Second))
}

func (p *Player) seconds() float64 { return float64(p.frames) / float64(p.rate) }

// Duration returns the clip's length.
func (p *Player) Duration() time.Duration {
	return time.Duration(p.seconds() * float64(time.Second))
}

// Playing reports whether sound is being played (false once the clip has
// run out, after Pause or Stop).
func (p *Player) Playing() bool { return p.op.IsPlaying() }

// Wait blocks until the clip has played to its end (true) or ctx is done
// (false, and playback is paused). Progress is called (if not nil) about
// every 100 ms with the position.
func (p *Player) Wait(ctx context.Context, progress func(pos, dur time.Duration)) bool {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if progress != nil {
			progress(p.Position(), p.Duration())
		}
		if !p.op.IsPlaying() {
			p.mu.Lock()
			p.idle()
			p.mu.Unlock()
			return p.src.ended()
		}
		select {
		case <-ctx.Done():
			p.Pause()
			return false
		case <-t.C:
		}
	}
}

// Close stops playback and releases the player.
func (p *Player) Close() error {
	p.Pause()
	return p.op.Close()
}

// Err returns the driver's error, if playback failed.
func (p *Player) Err() error {
	if err := p.op.Err(); err != nil {
		return err
	}
	return p.ctx.Err()
}

// pcmReader serves a PCM clip. pos counts device frames handed out.
type pcmReader struct {
	pcm  *synth.PCM
	step float64 // source frames per device frame
	pos  atomic.Int64
	eof  atomic.Bool
}

func (r *pcmReader) played() int64 { return r.pos.Load() }
func (r *pcmReader) ended() bool   { return r.eof.Load() }

func (r *pcmReader) Read(b []byte) (int, error) {
	frames := len(b) / 8
	if frames == 0 {
		return 0, nil
	}
	n := r.pcm.Frames()
	ch := r.pcm.Channels
	pos := r.pos.Load()
	w := 0
	for ; w < frames; w++ {
		src := float64(pos+int64(w)) * r.step
		i := int(src)
		if i >= n {
			break
		}
		fr := float32(src - float64(i))
		j := min(i+1, n-1)
		var l, rr float32
		if ch == 2 {
			l = r.pcm.Samples[2*i] + (r.pcm.Samples[2*j]-r.pcm.Samples[2*i])*fr
			rr = r.pcm.Samples[2*i+1] + (r.pcm.Samples[2*j+1]-r.pcm.Samples[2*i+1])*fr
		} else {
			l = r.pcm.Samples[i] + (r.pcm.Samples[j]-r.pcm.Samples[i])*fr
			rr = l
		}
		binary.LittleEndian.PutUint32(b[8*w:], math.Float32bits(l))
		binary.LittleEndian.PutUint32(b[8*w+4:], math.Float32bits(rr))
	}
	r.pos.Add(int64(w))
	if w == 0 {
		r.eof.Store(true)
		return 0, io.EOF
	}
	return 8 * w, nil
}

// Seek implements io.Seeker in bytes of device frames (8 bytes each).
func (r *pcmReader) Seek(off int64, whence int) (int64, error) {
	cur := r.pos.Load() * 8
	switch whence {
	case io.SeekCurrent:
		off += cur
	case io.SeekEnd:
		off += int64(float64(r.pcm.Frames())/r.step) * 8
	}
	if off < 0 {
		return cur, fmt.Errorf("audio: seek before the start")
	}
	r.pos.Store(off / 8)
	r.eof.Store(false)
	return off / 8 * 8, nil
}

// streamReader serves a synth.Stream, resampled by linear interpolation
// like pcmReader, keeping only a window of source frames: [base,
// base+len(win)/2).
type streamReader struct {
	mu     sync.Mutex
	st     *synth.Stream
	step   float64
	start  int64 // the stream's position when handed over (device frame 0)
	pos    atomic.Int64
	eof    atomic.Bool
	win    []float32
	base   int64 // source frame of win[0] (relative to start)
	srcEOF bool
	block  []float32
}

func (r *streamReader) played() int64 { return r.pos.Load() }
func (r *streamReader) ended() bool   { return r.eof.Load() }

// frame returns source frame i (relative to start) as (l, r), reading more
// of the stream as needed; ok is false past its end.
func (r *streamReader) frame(i int64) (l, rr float32, ok bool) {
	for i >= r.base+int64(len(r.win)/2) {
		if r.srcEOF {
			return 0, 0, false
		}
		// Drop the frames before i-1 (kept: upsampling reads it again),
		// keep the rest, append a block.
		if drop := min(i-1-r.base, int64(len(r.win)/2)); drop > 0 {
			r.win = append(r.win[:0], r.win[2*drop:]...)
			r.base += drop
		}
		if r.block == nil {
			r.block = make([]float32, 2*8192) // as RenderTo: the same blocks, the same audio
		}
		n, err := r.st.Read(r.block)
		r.win = append(r.win, r.block[:2*n]...)
		if err != nil {
			r.srcEOF = true
		}
	}
	if i < r.base {
		return 0, 0, false // cannot happen: reads only move forward between seeks
	}
	k := 2 * (i - r.base)
	return r.win[k], r.win[k+1], true
}

func (r *streamReader) Read(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	frames := len(b) / 8
	if frames == 0 {
		return 0, nil
	}
	pos := r.pos.Load()
	w := 0
	for ; w < frames; w++ {
		src := float64(pos+int64(w)) * r.step
		i := int64(src)
		l0, r0, ok := r.frame(i)
		if !ok {
			break
		}
		l1, r1, ok := r.frame(i + 1)
		if !ok {
			l1, r1 = l0, r0
		}
		fr := float32(src - float64(i))
		binary.LittleEndian.PutUint32(b[8*w:], math.Float32bits(l0+(l1-l0)*fr))
		binary.LittleEndian.PutUint32(b[8*w+4:], math.Float32bits(r0+(r1-r0)*fr))
	}
	r.pos.Add(int64(w))
	if w == 0 {
		r.eof.Store(true)
		return 0, io.EOF
	}
	return 8 * w, nil
}

// Seek implements io.Seeker in bytes of device frames; io.SeekEnd counts
// from the stream's Length.
func (r *streamReader) Seek(off int64, whence int) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.pos.Load() * 8
	switch whence {
	case io.SeekCurrent:
		off += cur
	case io.SeekEnd:
		off += int64(float64(r.st.Length()-r.start)/r.step) * 8
	}
	if off < 0 {
		return cur, fmt.Errorf("audio: seek before the start")
	}
	dev := off / 8
	srcFrame := int64(float64(dev) * r.step)
	r.st.SeekFrame(r.start + srcFrame)
	r.win, r.base, r.srcEOF = r.win[:0], srcFrame, false
	r.pos.Store(dev)
	r.eof.Store(false)
	return dev * 8, nil
}
