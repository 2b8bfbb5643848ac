package cli

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/app"
	"github.com/amtstudio/amt/engine/midi"
)

// mixFlags are the track settings `amt play` and `amt render` share with
// the window's track list: --mute, --solo, --volume and --program name
// tracks by their number (1-based, as `amt inspect` lists them).
type mixFlags struct {
	mute, solo, volume, program *string
}

func addMixFlags(fs *flag.FlagSet) mixFlags {
	return mixFlags{
		mute:    fs.String("mute", "", "tracks to leave out, e.g. 2,3"),
		solo:    fs.String("solo", "", "tracks to play alone, e.g. 1"),
		volume:  fs.String("volume", "", fmt.Sprintf("track volumes, e.g. 1=0.5,2=1.2 (0–%g, 1 as written)", app.MaxTrackVolume)),
		program: fs.String("program", "", "change instruments: TRACK=GM program, e.g. 1=40 (violin)"),
	}
}

func (f mixFlags) set() bool {
	return *f.mute != "" || *f.solo != "" || *f.volume != "" || *f.program != ""
}

// apply returns sc with the --program changes and the mix of the other
// flags (nil when none is given).
func (f mixFlags) apply(sc *midi.Score) (*midi.Score, []app.TrackMix, error) {
	if !f.set() {
		return sc, nil, nil
	}
	n := len(sc.Tracks)
	track := func(flagName, s string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 || v > n {
			return 0, fmt.Errorf("%w: --%s %s: the piece has tracks 1–%d", ErrUsage, flagName, s, n)
		}
		return v - 1, nil
	}
	pairs := func(flagName, s string, each func(i int, v float64) error) error {
		for _, p := range strings.Split(s, ",") {
			if strings.TrimSpace(p) == "" {
				continue
			}
			k, v, ok := strings.Cut(p, "=")
			if !ok {
				return fmt.Errorf("%w: --%s %s: give TRACK=VALUE", ErrUsage, flagName, p)
			}
			i, err := track(flagName, k)
			if err != nil {
				return err
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return fmt.Errorf("%w: --%s %s: %q is not a number", ErrUsage, flagName, p, v)
			}
			if err := each(i, x); err != nil {
				return err
			}
		}
		return nil
	}
	err := pairs("program", *f.program, func(i int, v float64) error {
		var err error
		if v != math.Trunc(v) {
			return fmt.Errorf("%w: --program %d=%g: give a whole GM program 0–127", ErrUsage, i+1, v)
		}
		sc, err = app.SetProgram(sc, i, int(v))
		if err != nil {
			return fmt.Errorf("%w: --program: %v", ErrUsage, err)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	mix := app.DefaultMix(sc)
	for _, l := range []struct {
		name string
		s    string
		set  func(*app.TrackMix)
	}{{"mute", *f.mute, func(t *app.TrackMix) { t.Mute = true }}, {"solo", *f.solo, func(t *app.TrackMix) { t.Solo = true }}} {
		for _, s := range strings.Split(l.s, ",") {
			if strings.TrimSpace(s) == "" {
				continue
			}
			i, err := track(l.name, s)
			if err != nil {
				return nil, nil, err
			}
			l.set(&mix[i])
		}
	}
	err = pairs("volume", *f.volume, func(i int, v float64) error {
		if !(v >= 0 && v <= app.MaxTrackVolume) {
			return fmt.Errorf("%w: --volume %d=%g: give 0–%g", ErrUsage, i+1, v, app.MaxTrackVolume)
		}
		mix[i].Volume = v
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return sc, mix, nil
}
