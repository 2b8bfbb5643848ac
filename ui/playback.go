package ui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
	"github.com/amtstudio/amt/ui/widgets"
)

// playback plays a score through app.PlayScore (what `amt play` calls)
// with a playhead on a piano roll. One clip plays at a time; the audio
// device is suspended between clips (engine/audio, behind app), so an idle
// window costs no CPU.
type playback struct {
	e         *env
	soundFont func() string
	onChange  func(playing bool) // on the UI goroutine, through the bridge

	// player plays; nil: app.PlayScore (tests put a recorder here, the
	// test machine having no sound device).
	player func(ctx context.Context, sc *midi.Score, o app.PlayOptions, progress func(sec float64)) (*app.RenderResult, error)

	mu     sync.Mutex
	cancel context.CancelFunc
	gen    int
	pos    float64 // the playhead (seconds into the score) last reported
}

func (pb *playback) playing() bool {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.cancel != nil
}

// position is the playhead last reported, in seconds into the score.
func (pb *playback) position() float64 {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.pos
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

// play starts sc from its start as written; roll (may be nil) shows the
// playhead.
func (pb *playback) play(sc *midi.Score, name string, roll *widgets.PianoRoll) {
	pb.playWith(sc, name, roll, app.PlayOptions{})
}

// playWith starts sc as o says (mix, loop, tempo, start); o.Render's
// Input and SoundFont are filled here.
func (pb *playback) playWith(sc *midi.Score, name string, roll *widgets.PianoRoll, o app.PlayOptions) {
	pb.stop()
	if sc == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	pb.mu.Lock()
	pb.cancel = cancel
	pb.gen++
	gen := pb.gen
	pb.pos = o.Start
	pb.mu.Unlock()
	pb.changed(true)
	o.Render.Input, o.Render.SoundFont = name, pb.soundFont()
	o.OnStart = func(res *app.RenderResult) { pb.e.setStatus("Playing " + name + " (" + res.SoundFont + ")") }
	player := pb.player
	if player == nil {
		player = app.PlayScore
	}
	go func() {
		defer func() {
			pb.mu.Lock()
			latest := pb.gen == gen // no clip started after this one
			if latest {
				pb.cancel = nil
			}
			pb.mu.Unlock()
			cancel()
			if !latest {
				return
			}
			if roll != nil {
				pb.e.bridge.Post(fmt.Sprintf("playhead%p", pb), func() { roll.SetPlayhead(-1) })
			}
			pb.changed(false)
		}()
		_, err := player(ctx, sc, o, func(sec float64) {
			pb.mu.Lock()
			if pb.gen == gen {
				pb.pos = sec
			}
			pb.mu.Unlock()
			if roll != nil {
				pb.e.bridge.postPlayhead(fmt.Sprintf("playhead%p", pb), roll, sec)
			}
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			pb.e.setStatus("Cannot play: " + err.Error())
		}
	}()
}

func (pb *playback) changed(on bool) {
	if pb.onChange != nil {
		pb.e.bridge.Post(fmt.Sprintf("playing%p", pb), func() { pb.onChange(on) })
	}
}
