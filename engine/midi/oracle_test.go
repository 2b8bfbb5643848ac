package midi

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/amtstudio/amt/engine/corpus"
	gomidi "gitlab.com/gomidi/midi/v2/smf"
)

// oNote is a note as the oracle sees it.
type oNote struct {
	Source, Channel, Program int
	Tick, Dur                int64
	Pitch, Velocity          uint8
}

type oracleResult struct {
	notes   []oNote
	tempos  []TempoChange
	meters  []MeterChange
	keys    []KeyChange
	endTick int64
}

// metaData returns the data of a meta message as gomidi stores it
// (FF type VLQ-length data).
func metaData(m gomidi.Message) []byte {
	i, n := 2, 0
	for i < len(m) {
		c := m[i]
		i++
		n = n<<7 | int(c&0x7F)
		if c < 0x80 {
			break
		}
	}
	if i+n > len(m) {
		return nil
	}
	return m[i : i+n]
}

// oracle decodes a file with gomidi's smf reader and pairs notes with its
// own straightforward code: FIFO queues per (track, channel, pitch), the
// program rules documented on Parse, tempo/meter/key filters as Parse's.
func oracle(data []byte) (res oracleResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("gomidi panicked: %v", r)
		}
	}()
	sm, err := gomidi.ReadFrom(bytes.NewReader(data))
	if err != nil {
		return res, err
	}
	type fp struct {
		tick int64
		prog int
	}
	first := map[int]fp{} // channel → earliest program change
	for ti, tr := range sm.Tracks {
		var tick int64
		prog := map[int]int{}
		open := map[[2]int][]int{}
		start := len(res.notes)
		for _, ev := range tr {
			tick += int64(ev.Delta)
			m := ev.Message
			var ch, key, vel uint8
			switch {
			case m.GetNoteStart(&ch, &key, &vel):
				p, ok := prog[int(ch)]
				if !ok {
					p = -1
				}
				k := [2]int{int(ch), int(key)}
				open[k] = append(open[k], len(res.notes))
				res.notes = append(res.notes, oNote{ti, int(ch), p, tick, -1, key, vel})
			case m.GetNoteEnd(&ch, &key):
				k := [2]int{int(ch), int(key)}
				if q := open[k]; len(q) > 0 {
					res.notes[q[0]].Dur = tick - res.notes[q[0]].Tick
					open[k] = q[1:]
				}
			case m.GetProgramChange(&ch, &vel):
				prog[int(ch)] = int(vel)
				if f, ok := first[int(ch)]; !ok || tick < f.tick {
					first[int(ch)] = fp{tick, int(vel)}
				}
			case m.Is(gomidi.MetaTempoMsg):
				d := metaData(m)
				if len(d) >= 3 {
					if mpb := int(d[0])<<16 | int(d[1])<<8 | int(d[2]); mpb > 0 {
						res.tempos = append(res.tempos, TempoChange{tick, mpb})
					}
				}
			case m.Is(gomidi.MetaTimeSigMsg):
				var num, den uint8
				d := metaData(m)
				if m.GetMetaMeter(&num, &den) && num > 0 && len(d) == 4 && d[1] <= 7 {
					res.meters = append(res.meters, MeterChange{tick, int(num), int(den)})
				}
			case m.Is(gomidi.MetaKeySigMsg):
				d := metaData(m)
				if len(d) == 2 && int8(d[0]) >= -7 && int8(d[0]) <= 7 && d[1] <= 1 {
					res.keys = append(res.keys, KeyChange{tick, int(int8(d[0])), d[1] == 1})
				}
			}
		}
		for i := start; i < len(res.notes); i++ {
			if res.notes[i].Dur < 0 {
				res.notes[i].Dur = tick - res.notes[i].Tick
			}
		}
		res.endTick = max(res.endTick, tick)
	}
	// Resolve programs of notes played before any change in their track:
	// the earliest change on the channel if it is no later than the first
	// such note of that track and channel, else 0.
	firstUnset := map[[2]int]int64{}
	for _, n := range res.notes {
		k := [2]int{n.Source, n.Channel}
		if f, ok := firstUnset[k]; n.Program < 0 && (!ok || n.Tick < f) {
			firstUnset[k] = n.Tick
		}
	}
	for i := range res.notes {
		n := &res.notes[i]
		if n.Program < 0 {
			n.Program = 0
			if f, ok := first[n.Channel]; ok && f.tick <= firstUnset[[2]int{n.Source, n.Channel}] {
				n.Program = f.prog
			}
		}
	}
	byTick := func(a, b int64) int { return cmp.Compare(a, b) }
	slices.SortStableFunc(res.tempos, func(a, b TempoChange) int { return byTick(a.Tick, b.Tick) })
	slices.SortStableFunc(res.meters, func(a, b MeterChange) int { return byTick(a.Tick, b.Tick) })
	slices.SortStableFunc(res.keys, func(a, b KeyChange) int { return byTick(a.Tick, b.Tick) })
	return res, nil
}

func compareNotes(a, b oNote) int {
	return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Program, b.Program),
		cmp.Compare(a.Tick, b.Tick), cmp.Compare(a.Pitch, b.Pitch), cmp.Compare(a.Dur, b.Dur), cmp.Compare(a.Velocity, b.Velocity))
}

// TestOracleCorpora decodes every file of the three corpora with Parse and
// with gomidi (plus the oracle's own pairing) and requires the same notes
// (source track, channel, program, tick, duration, pitch, velocity), tempo
// map, meters, keys and end tick.
func TestOracleCorpora(t *testing.T) {
	for _, c := range []string{corpus.POP909, corpus.Nottingham, corpus.OpenMSX} {
		files := corpus.MIDIFiles(t, c)
		bad, notes := 0, 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, oerr := oracle(data)
			s, err := Parse(f, data)
			if (err != nil) != (oerr != nil) {
				t.Errorf("%s: Parse error %v, gomidi error %v", f, err, oerr)
				bad++
				continue
			}
			if err != nil {
				continue
			}
			var got []oNote
			for _, tr := range s.Tracks {
				if tr.IsDrum != (tr.Channel == 9) {
					t.Errorf("%s: drum flag on channel %d", f, tr.Channel)
				}
				for _, n := range tr.Notes {
					got = append(got, oNote{tr.Source, tr.Channel, tr.Program, n.Tick, n.Dur, n.Pitch, n.Velocity})
				}
			}
			slices.SortFunc(got, compareNotes)
			slices.SortFunc(want.notes, compareNotes)
			notes += len(got)
			ok := slices.Equal(got, want.notes) && slices.Equal(s.Tempos, want.tempos) &&
				slices.Equal(s.Meters, want.meters) && slices.Equal(s.Keys, want.keys) && s.EndTick == want.endTick
			if !ok {
				bad++
				if bad <= 5 {
					t.Errorf("%s: differs from gomidi: %d/%d notes, tempos %d/%d, meters %v/%v, keys %v/%v, end %d/%d",
						f, len(got), len(want.notes), len(s.Tempos), len(want.tempos), s.Meters, want.meters,
						s.Keys, want.keys, s.EndTick, want.endTick)
					for i := range min(len(got), len(want.notes)) {
						if got[i] != want.notes[i] {
							t.Errorf("  first differing note: %+v vs gomidi %+v", got[i], want.notes[i])
							break
						}
					}
				}
			}
		}
		t.Logf("%s: %d files, %d notes, %d differ from gomidi", c, len(files), notes, bad)
	}
}
