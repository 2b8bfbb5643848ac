package ui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/audio"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/ui/widgets"
)

// playback renders a score and plays it with a playhead on a piano roll.
// One clip plays at a time; the audio device is suspended between clips
// (engine/audio), so an idle window costs no CPU.
type playback struct {
	e         *env
	soundFont func() string
	onChange  func(playing bool) // on the UI goroutine, through the bridge

	mu     sync.Mutex
	cancel context.CancelFunc
	gen    int
}

func (pb *playback) playing() bool {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.cancel != nil
}

// stop ends the current clip (if any).
func (pb *playback) stop() {
	pb.mu.Lock()
	if pb.cancel != nil {
		pb.cancel()
		pb.cancel = nil
	}
	pb.mu.Unlock()
}

// play starts sc; roll (may be nil) shows the playhead.
func (pb *playback) play(sc *midi.Score, name string, roll *widgets.PianoRoll) {
	pb.stop()
	if sc == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	pb.mu.Lock()
	pb.cancel = cancel
	pb.gen++
	gen := pb.gen
	pb.mu.Unlock()
	pb.changed(true)
	go func() {
		defer func() {
			pb.mu.Lock()
			if pb.gen == gen {
				pb.cancel = nil
			}
			pb.mu.Unlock()
			cancel()
			if roll != nil {
				pb.e.bridge.Post(fmt.Sprintf("playhead%p", pb), func() { roll.SetPlayhead(-1) })
			}
			pb.changed(false)
		}()
		if err := audio.Available(); err != nil {
			pb.e.setStatus("Cannot play: " + err.Error())
			return
		}
		// Rendered block by block as it plays: memory stays constant
		// however long the piece.
		st, res, err := app.StreamScore(sc, app.RenderOptions{Input: name, SoundFont: pb.soundFont()})
		if err != nil {
			pb.e.setStatus("Cannot play: " + err.Error())
			return
		}
		p, err := audio.NewStreamPlayer(st)
		if err != nil {
			pb.e.setStatus("Cannot play: " + err.Error())
			return
		}
		defer p.Close()
		pb.e.setStatus("Playing " + name + " (" + res.SoundFont + ")")
		p.Play()
		p.Wait(ctx, func(pos, _ time.Duration) {
			if roll != nil {
				roll.PostPlayhead(pos.Seconds())
			}
		})
		p.Stop()
	}()
}

func (pb *playback) changed(on bool) {
	if pb.onChange != nil {
		pb.e.bridge.Post(fmt.Sprintf("playing%p", pb), func() { pb.onChange(on) })
	}
}
