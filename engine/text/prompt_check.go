package text

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/amtstudio/amt/engine/token"
)

// What a prompt may ask for. A number outside these (or two different ones
// for one attribute) is not used, and Prompt.Problems says so in words:
// "0 bpm", "1000 bpm", "13/7", "in 32/1 time", "100000 bars" and "3/4 in
// 4/4" were once ignored or half-used without a word, and "-120 bpm" was
// read as 120 bpm.
var (
	// PromptMinBPM and PromptMaxBPM bound a tempo: the vocabulary's tempo
	// bins end at 20 and 300 bpm.
	PromptMinBPM = 20.0
	PromptMaxBPM = 300.0
	// PromptMaxBars is the longest length a prompt may ask (the
	// vocabulary's LENGTH attribute ends there); a generator may allow
	// less and say so.
	PromptMaxBars = token.DefaultConfig().MaxBars
	// PromptMeters are the time signatures a prompt may ask: those with a
	// METER attribute token of their own.
	PromptMeters = token.DefaultConfig().Meters
)

// Broader than the patterns ParsePrompt reads, so that every number a
// user wrote for an attribute is seen, in range or not, and with its sign
// ("-120 bpm": normalizePrompt keeps a minus that starts a number).
var (
	chkBPM    = regexp.MustCompile(`(?:^|[^\w-])(-?\d+(?:\.\d+)?) ?(?:bpm|beats per minute|beats a minute|beats/min)\b`)
	chkTempo  = regexp.MustCompile(`\b(?:tempo|metronome) (?:of |at |= |=)?(-?\d+(?:\.\d+)?)\b`)
	chkMeter  = regexp.MustCompile(`(?:^|[^\w-])(-?\d+) ?/ ?(-?\d+)\b( ?[a-z]+)?`)
	chkMeterW = regexp.MustCompile(`(?:^|[^\w-])(-?\d+) (-?\d+) (?:time|meter|metre)\b`)
	chkBars   = regexp.MustCompile(`(?:^|[^\w-])(-?\d+) ?(?:bars?|measures?)\b`)
	chkHours  = regexp.MustCompile(`(?:^|[^\w-])(-?\d+(?:\.\d+)?) ?(?:hours?|hrs?)\b`)
	chkMins   = regexp.MustCompile(`(?:^|[^\w-])(-?\d+(?:\.\d+)?) ?(?:minutes?|mins?)\b`)
	chkSecs   = regexp.MustCompile(`(?:^|[^\w-])(-?\d+(?:\.\d+)?) ?(?:seconds?|secs?)\b`)
	chkAnHour = regexp.MustCompile(`\b(half )?an? hour\b`)
)

// notMeterUnits follow a fraction that is not a time signature ("1/8
// notes", "1/2 hour").
var notMeterUnits = map[string]bool{"note": true, "notes": true, "hour": true, "hours": true,
	"minute": true, "minutes": true, "second": true, "seconds": true, "of": true, "beat": true, "beats": true}

// checkNumbers reports, in p.Problems, the numbers of tempo, meter and
// length the prompt gives that are out of range, unknown or in conflict,
// and unsets the attribute they would have set. norm is the normalized
// text ParsePrompt matched.
func (p *Prompt) checkNumbers(norm string) {
	add := func(format string, a ...any) { p.Problems = append(p.Problems, fmt.Sprintf(format, a...)) }

	// Tempo.
	var tempos []float64
	for _, re := range []*regexp.Regexp{chkBPM, chkTempo} {
		for _, m := range re.FindAllStringSubmatch(norm, -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			if v < PromptMinBPM || v > PromptMaxBPM {
				add("tempo %s bpm is outside %g–%g bpm", m[1], PromptMinBPM, PromptMaxBPM)
				continue
			}
			tempos = appendNew(tempos, v)
		}
	}
	if len(tempos) > 1 {
		add("two tempos (%s): give one", joinNums(tempos, " bpm and ", " bpm"))
	}
	if t := p.Attrs.TempoBPM; t != 0 && (t < PromptMinBPM || t > PromptMaxBPM || len(tempos) > 1) {
		p.Attrs.TempoBPM = 0
	}

	// Meter.
	var meters []token.Meter
	seeMeter := func(num, den string) {
		n, _ := strconv.Atoi(num)
		d, _ := strconv.Atoi(den)
		m := token.Meter{Num: n, Den: d}
		if !knownMeter(m) {
			add("%s/%s is not a time signature the model knows (%s)", num, den, meterList())
			return
		}
		for _, x := range meters {
			if x == m {
				return
			}
		}
		meters = append(meters, m)
	}
	for _, m := range chkMeter.FindAllStringSubmatch(norm, -1) {
		if notMeterUnits[strings.TrimSpace(m[3])] {
			continue
		}
		seeMeter(m[1], m[2])
	}
	for _, m := range chkMeterW.FindAllStringSubmatch(norm, -1) {
		seeMeter(m[1], m[2])
	}
	if len(meters) > 1 {
		names := make([]string, len(meters))
		for i, m := range meters {
			names[i] = m.String()
		}
		add("two time signatures (%s): give one", strings.Join(names, " and "))
	}
	if p.Attrs.MeterNum != 0 && (!knownMeter(token.Meter{Num: p.Attrs.MeterNum, Den: p.Attrs.MeterDen}) || len(meters) > 1) {
		p.Attrs.MeterNum, p.Attrs.MeterDen = 0, 0
	}

	// Length in bars, or in hours and (many) minutes, which ParsePrompt
	// does not read.
	var lengths []float64
	for _, m := range chkBars.FindAllStringSubmatch(norm, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		if v < 1 || v > float64(PromptMaxBars) {
			add("%s bars is outside 1–%d bars", m[1], PromptMaxBars)
			if float64(p.Attrs.Bars) == v {
				p.Attrs.Bars = 0
			}
			continue
		}
		lengths = appendNew(lengths, v)
	}
	if len(lengths) > 1 {
		add("two lengths (%s): give one", joinNums(lengths, " and ", " bars"))
	}
	// Lengths ParsePrompt does not read: hours, and minutes or seconds
	// beyond its patterns' digits. A negative one is no length, nor is a
	// zero when nothing else gives one ("0 minutes"; "2 minutes 0
	// seconds" is two minutes).
	extra := 0.0
	var zeros []string
	timeProblem, positive := false, p.Seconds > 0
	for _, u := range []struct {
		re    *regexp.Regexp
		scale float64
		from  float64 // smallest value ParsePrompt does not read
	}{{chkHours, 3600, 0}, {chkMins, 60, 1000}, {chkSecs, 1, 10000}} {
		for _, m := range u.re.FindAllStringSubmatch(norm, -1) {
			v, _ := strconv.ParseFloat(m[1], 64)
			said := m[1] + " " + strings.TrimSpace(m[0][strings.Index(m[0], m[1])+len(m[1]):])
			switch {
			case v < 0:
				add("%s is not a length", said)
				timeProblem = true
			case v == 0:
				zeros = append(zeros, said)
			default:
				positive = true
			}
			if v >= u.from {
				extra += u.scale * v
			}
		}
	}
	for _, m := range chkAnHour.FindAllStringSubmatch(norm, -1) {
		if m[1] != "" {
			extra += 1800
		} else {
			extra += 3600
		}
		positive = true
	}
	if !positive && len(lengths) == 0 {
		for _, z := range zeros {
			add("%s is not a length", z)
			timeProblem = true
		}
	}
	if timeProblem {
		p.Seconds, extra = 0, 0
		if len(lengths) == 0 {
			p.Attrs.Bars = 0
		}
	}
	if len(lengths) == 0 {
		if extra > 0 {
			p.Seconds += extra
			p.Attrs.Bars = barsOf(p.Seconds, p.Attrs)
		}
		if p.Seconds > 0 && p.Attrs.Bars > PromptMaxBars {
			add("%s is %d bars, more than %d", clockText(p.Seconds), p.Attrs.Bars, PromptMaxBars)
			p.Attrs.Bars = 0
		}
	} else if len(lengths) > 1 {
		p.Attrs.Bars = 0
	}
}

// barsOf converts seconds to bars as ParsePrompt does (120 bpm and 4/4
// when the prompt gives no tempo or meter).
func barsOf(sec float64, a token.Attributes) int {
	bpm := a.TempoBPM
	if bpm <= 0 {
		bpm = 120
	}
	beats := 4.0
	if a.MeterNum > 0 && a.MeterDen > 0 {
		beats = float64(a.MeterNum) * 4 / float64(a.MeterDen)
	}
	return max(1, int(sec*bpm/60/beats+0.5))
}

func knownMeter(m token.Meter) bool {
	for _, x := range PromptMeters {
		if x == m {
			return true
		}
	}
	return false
}

func meterList() string {
	names := make([]string, len(PromptMeters))
	for i, m := range PromptMeters {
		names[i] = m.String()
	}
	return strings.Join(names, ", ")
}

func appendNew(xs []float64, v float64) []float64 {
	for _, x := range xs {
		if x == v {
			return xs
		}
	}
	return append(xs, v)
}

func joinNums(xs []float64, sep, unit string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strings.Join(parts, sep) + unit
}

// clockText writes seconds as "2 h 5 min" or "12 min 30 s".
func clockText(sec float64) string {
	s := int(sec + 0.5)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%d h %d min", s/3600, s/60%60)
	case s >= 60:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d s", s)
}
