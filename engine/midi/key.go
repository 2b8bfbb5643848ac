package midi

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Key is a musical key: a tonic pitch class (0 = C … 11 = B) and a mode.
// Confidence is the Krumhansl–Schmuckler correlation of an estimate (−1…1;
// 1 for a declared key signature). In JSON a Key is its name, "D minor".
type Key struct {
	Tonic      int
	Minor      bool
	Confidence float64
}

// Spellings used by String: the usual key-signature names (at most six
// accidentals; F# rather than Gb for the major key with six).
var (
	majorNames = [12]string{"C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B"}
	minorNames = [12]string{"C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B"}
)

// String returns the key's name: "D minor", "Eb major".
func (k Key) String() string {
	t := ((k.Tonic % 12) + 12) % 12
	if k.Minor {
		return minorNames[t] + " minor"
	}
	return majorNames[t] + " major"
}

// Same reports whether two keys have the same tonic and mode (Confidence is
// ignored; enharmonic spellings are the same pitch class anyway).
func (k Key) Same(o Key) bool { return k.Tonic == o.Tonic && k.Minor == o.Minor }

// KeyOf returns the Key of a key-signature event (Confidence 1).
func KeyOf(kc KeyChange) Key { return Key{Tonic: kc.Tonic(), Minor: kc.Minor, Confidence: 1} }

// MarshalJSON writes the key's name.
func (k Key) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// UnmarshalJSON reads a key name (see ParseKey). Confidence is not kept.
func (k *Key) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	x, err := ParseKey(s)
	if err != nil {
		return err
	}
	*k = x
	return nil
}

var letterPC = map[byte]int{'C': 0, 'D': 2, 'E': 4, 'F': 5, 'G': 7, 'A': 9, 'B': 11}

// ParseKey reads a key name: a letter, accidentals (#, b, ♯, ♭, "sharp",
// "flat") and a mode ("major", "minor", "maj", "min", "m", or POP909's
// "Gb:maj"); a bare tonic is major. Case is ignored except that a lone "m"
// suffix means minor ("Am").
func ParseKey(s string) (Key, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return Key{}, fmt.Errorf("midi: key %q: empty", orig)
	}
	pc, ok := letterPC[strings.ToUpper(s[:1])[0]]
	if !ok {
		return Key{}, fmt.Errorf("midi: key %q: no tonic letter A–G", orig)
	}
	rest := s[1:]
	for done := false; !done; {
		low := strings.ToLower(strings.TrimLeft(rest, " "))
		switch {
		case strings.HasPrefix(rest, "#"):
			pc, rest = pc+1, rest[1:]
		case strings.HasPrefix(rest, "♯"):
			pc, rest = pc+1, rest[len("♯"):]
		case strings.HasPrefix(rest, "b"):
			pc, rest = pc-1, rest[1:]
		case strings.HasPrefix(rest, "♭"):
			pc, rest = pc-1, rest[len("♭"):]
		case strings.HasPrefix(low, "sharp"):
			pc, rest = pc+1, low[len("sharp"):]
		case strings.HasPrefix(low, "flat"):
			pc, rest = pc-1, low[len("flat"):]
		default:
			done = true
		}
	}
	mode := strings.TrimLeft(rest, " :-_")
	k := Key{Tonic: ((pc % 12) + 12) % 12}
	switch strings.ToLower(mode) {
	case "", "maj", "major", "ionian":
	case "min", "minor", "aeolian":
		k.Minor = true
	default:
		if mode == "m" {
			k.Minor = true
		} else {
			return Key{}, fmt.Errorf("midi: key %q: unknown mode %q", orig, mode)
		}
	}
	return k, nil
}

// Krumhansl–Kessler key profiles (probe-tone ratings), tonic first.
var (
	ksMajor = [12]float64{6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88}
	ksMinor = [12]float64{6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17}
)

// EstimateKey returns the key by the Krumhansl–Schmuckler algorithm: the
// duration-weighted (in seconds) pitch-class histogram of the pitched notes
// (drums excluded) is correlated (Pearson) with the Krumhansl–Kessler major
// and minor profiles in all 12 rotations; the best of the 24 wins and its
// correlation is the Confidence. A score without pitched notes gives C major
// with Confidence 0. Start/Duration must be filled (Parse does it); notes
// with Duration 0 fall back to ticks so hand-built scores work too.
func EstimateKey(s *Score) Key {
	var h [12]float64
	any := false
	for ti := range s.Tracks {
		t := &s.Tracks[ti]
		if t.IsDrum {
			continue
		}
		for i := range t.Notes {
			n := &t.Notes[i]
			w := n.Duration
			if w <= 0 && n.Dur > 0 && s.TicksPerBeat > 0 {
				w = float64(n.Dur) / float64(s.TicksPerBeat) * 0.5 // 120 bpm
			}
			if w > 0 {
				h[n.Pitch%12] += w
				any = true
			}
		}
	}
	if !any {
		return Key{}
	}
	return estimateFromHistogram(h)
}

// estimateFromHistogram picks the best of the 24 keys for a pitch-class
// histogram.
func estimateFromHistogram(h [12]float64) Key {
	best := Key{Confidence: math.Inf(-1)}
	for minor := 0; minor < 2; minor++ {
		prof := &ksMajor
		if minor == 1 {
			prof = &ksMinor
		}
		for tonic := 0; tonic < 12; tonic++ {
			var x [12]float64
			for i := 0; i < 12; i++ {
				x[i] = h[(tonic+i)%12]
			}
			r := pearson(x[:], prof[:])
			if r > best.Confidence {
				best = Key{Tonic: tonic, Minor: minor == 1, Confidence: r}
			}
		}
	}
	if math.IsInf(best.Confidence, -1) || math.IsNaN(best.Confidence) {
		return Key{}
	}
	return best
}

func pearson(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}
