package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/amtstudio/amt/app"
)

func init() {
	c := &Command{
		Name:    "synth",
		Usage:   "bench synth [--file FILE.mid] [--soundfont PATH] [--min-seconds S]",
		Summary: "SF2 and built-in rendering speed on one core (real-time factor; default POP909 song 001)",
	}
	c.Run = func(ctx context.Context, env *Env, args []string) error {
		fs := NewFlags(env, c)
		file := fs.String("file", "", "MIDI file (default: POP909 001 from the shared corpus)")
		sf := fs.String("soundfont", "", "SoundFont (default: the first in "+app.SoundFontDir+")")
		minSec := fs.Float64("min-seconds", 2, "least rendering time per synthesizer")
		if _, err := ParseInterleaved(fs, args); err != nil {
			return err
		}
		if *file == "" {
			d := app.CorpusDir()
			if d == "" {
				return fmt.Errorf("%w: no --file and no shared corpus (set AMT_SHARED_DATA)", ErrUsage)
			}
			*file = filepath.Join(d, app.RefPOP909, "001", "001.mid")
		}
		res, err := app.BenchSynth(ctx, *file, *sf, *minSec)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	RegisterBench(c)
}
