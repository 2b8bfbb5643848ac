package synth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// SystemSoundFontDir is where Debian's soundfont packages install
// (timgm6mb-soundfont, fluid-soundfont-gm).
const SystemSoundFontDir = "/usr/share/sounds/sf2"

// FindSoundFonts lists the *.sf2 files in dir, best first: FluidR3_GM,
// then the system default-GM link, then the others by name.
func FindSoundFonts(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	rank := func(name string) int {
		switch strings.ToLower(name) {
		case "fluidr3_gm.sf2":
			return 0
		case "default-gm.sf2":
			return 1
		}
		return 2
	}
	var out []string
	for _, e := range entries {
		if strings.EqualFold(filepath.Ext(e.Name()), ".sf2") {
			out = append(out, e.Name())
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if rank(out[i]) != rank(out[j]) {
			return rank(out[i]) < rank(out[j])
		}
		return out[i] < out[j]
	})
	for i := range out {
		out[i] = filepath.Join(dir, out[i])
	}
	return out
}

// cached is the SoundFont LoadSoundFontCached loaded last. It keeps one,
// so that fonts tried one after another (the Settings screen) do not pile
// up in memory, and reads it again when its file changed (size or time).
var cached struct {
	sync.Mutex
	path string
	size int64
	mod  time.Time
	sf   *SoundFont
}

// LoadSoundFontCached is LoadSoundFont sharing the parsed bank with later
// calls for the same unchanged file (a SoundFont is immutable once
// parsed): renders and playback in one process hold one copy of it.
func LoadSoundFontCached(path string) (*SoundFont, error) {
	return loadSoundFontCached(context.Background(), path)
}

func loadSoundFontCached(ctx context.Context, path string) (*SoundFont, error) {
	cached.Lock()
	defer cached.Unlock()
	fi, statErr := os.Stat(path)
	if statErr == nil && cached.sf != nil && cached.path == path && cached.size == fi.Size() && cached.mod.Equal(fi.ModTime()) {
		return cached.sf, nil
	}
	sf, err := LoadSoundFontContext(ctx, path)
	if err != nil {
		return nil, err
	}
	cached.path, cached.sf = path, sf
	cached.size, cached.mod = 0, time.Time{}
	if statErr == nil {
		cached.size, cached.mod = fi.Size(), fi.ModTime()
	}
	return sf, nil
}

// New chooses the synthesizer. With builtin set it is the built-in one. A
// soundFont path (from settings or the command line) is what the user
// asked for: when it cannot be used (missing, a folder, not a SoundFont,
// truncated or corrupt, no playable sample) err names the file and the
// reason, and r is nil. With soundFont empty, the first SoundFont in
// SystemSoundFontDir that loads is used (warn names those skipped), else the
// built-in synthesizer. warn also reports a SoundFont whose sample headers
// are partly out of range (SoundFont.Warning).
func New(soundFont string, builtin bool, opts Options) (r Renderer, warn, err error) {
	if builtin {
		return NewBuiltinRenderer(opts), nil, nil
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if soundFont != "" {
		sf, err := loadSoundFontCached(ctx, soundFont)
		if err != nil {
			return nil, nil, err
		}
		if sf.Warning != "" {
			warn = fmt.Errorf("synth: soundfont %s: %s", soundFont, sf.Warning)
		}
		return NewSoundFontRenderer(sf, opts), warn, nil
	}
	var errs []string
	for _, p := range FindSoundFonts(SystemSoundFontDir) {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("synth: %w", err)
		}
		sf, err := loadSoundFontCached(ctx, p)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if sf.Warning != "" {
			errs = append(errs, fmt.Sprintf("synth: soundfont %s: %s", p, sf.Warning))
		}
		if len(errs) > 0 {
			warn = fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		return NewSoundFontRenderer(sf, opts), warn, nil
	}
	if len(errs) > 0 {
		warn = fmt.Errorf("%s; using the built-in synthesizer", strings.Join(errs, "; "))
	}
	return NewBuiltinRenderer(opts), warn, nil
}
