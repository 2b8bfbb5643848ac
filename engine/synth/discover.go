package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
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

var (
	cacheMu sync.Mutex
	cache   = map[string]*SoundFont{}
)

// LoadSoundFontCached is LoadSoundFont keeping the parsed bank for later
// calls with the same path (a SoundFont is immutable once parsed).
func LoadSoundFontCached(path string) (*SoundFont, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if sf, ok := cache[path]; ok {
		return sf, nil
	}
	sf, err := LoadSoundFont(path)
	if err != nil {
		return nil, err
	}
	cache[path] = sf
	return sf, nil
}

// New chooses the synthesizer. With builtin set it is the built-in one.
// Otherwise soundFont (the path from settings or the command line) is used,
// or, when it is empty, the first SoundFont found in SystemSoundFontDir;
// with none found, the built-in synthesizer. The returned Renderer is never
// nil: when the chosen SoundFont cannot be read, warn names the file and the
// reason and the built-in synthesizer takes over.
func New(soundFont string, builtin bool, opts Options) (r Renderer, warn error) {
	if builtin {
		return NewBuiltinRenderer(opts), nil
	}
	candidates := []string{soundFont}
	if soundFont == "" {
		candidates = FindSoundFonts(SystemSoundFontDir)
	}
	var errs []string
	for _, p := range candidates {
		sf, err := LoadSoundFontCached(p)
		if err == nil {
			if len(errs) > 0 {
				warn = fmt.Errorf("synth: skipped %s", strings.Join(errs, "; "))
			}
			return NewSoundFontRenderer(sf, opts), warn
		}
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		warn = fmt.Errorf("%s; using the built-in synthesizer", strings.Join(errs, "; "))
	}
	return NewBuiltinRenderer(opts), warn
}
