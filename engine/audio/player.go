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

// Player plays one PCM clip. Its methods are safe for concurrent use (the
// GUI's buttons and its playhead timer call them from different goroutines).
type Player struct {
	ctx  *oto.Context
	pcm  *synth.PCM
	src  *pcmReader
	op   oto.Player
	mu   sync.Mutex
	on   bool // counted in playing
	done chan struct{}
}

// NewPlayer prepares pcm for playback. It returns ErrNoDevice (wrapped,
// with the driver's reason) when there is no sound card.
func NewPlayer(pcm *synth.PCM) (*Player, error) {
	if pcm == nil || pcm.Channels < 1 || pcm.Channels > 2 || pcm.SampleRate <= 0 {
		return nil, fmt.Errorf("audio: play: need mono or stereo PCM with a sample rate: %w", ErrFormat)
	}
	c, err := device()
	if err != nil {
		return nil, err
	}
	p := &Player{ctx: c, pcm: pcm, src: &pcmReader{pcm: pcm, step: float64(pcm.SampleRate) / DeviceRate}, done: make(chan struct{})}
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
	frame := int64(d.Seconds() * float64(p.pcm.SampleRate))
	frame = min(max(frame, 0), int64(p.pcm.Frames()))
	if s, ok := p.op.(io.Seeker); ok {
		// The oto player drops its buffer and seeks our reader (in bytes of
		// device frames).
		s.Seek(int64(math.Round(float64(frame)/p.src.step))*8, io.SeekStart)
	}
}

// Position returns the playhead: what has been heard, not what was read
// ahead into the driver's buffer.
func (p *Player) Position() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	devFrames := float64(p.src.pos.Load()) - float64(p.op.UnplayedBufferSize())/8
	sec := max(0, devFrames*p.src.step/float64(p.pcm.SampleRate))
	return time.Duration(min(sec, p.pcm.Seconds()) * float64(time.Second))
}

// Duration returns the clip's length.
func (p *Player) Duration() time.Duration {
	return time.Duration(p.pcm.Seconds() * float64(time.Second))
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
			return p.src.eof.Load()
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

// pcmReader serves a clip to oto as float32 little-endian stereo frames at
// DeviceRate. pos counts device frames handed out.
type pcmReader struct {
	pcm  *synth.PCM
	step float64 // source frames per device frame
	pos  atomic.Int64
	eof  atomic.Bool
}

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
