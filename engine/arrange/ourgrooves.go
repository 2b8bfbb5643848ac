package arrange

// Grooves of our own, in MMA's language, for styles the MMA library lacks
// with drums: a one-drop reggae and two Irish/English session feels (a reel
// in 4/4 and a jig in 6/8) with a bodhrán-like low tom, bass on the strong
// beats and a strummed guitar on the off-beats. Each defines its groove
// from scratch (SeqClear), so it does not depend on a library file.

// reggaeGroove: one drop (kick and rim on 3), hi-hat eighths, a bass line
// on the roots and fifths, a guitar skank on 2 and 4, an organ bubble on
// the off-beat eighths.
const reggaeGroove = `SeqClear
Time 4
TimeSig 4 4
SeqSize 2
Begin Drum-Kick
  Tone KickDrum1
  Volume f
  Sequence {3 0 110}
End
Begin Drum-Rim
  Tone SideKick
  Volume mf
  Sequence {3 0 95} {3 0 95; 4.5 0 60}
End
Begin Drum-HiHat
  Tone ClosedHiHat
  Volume mp
  RVolume 5
  Sequence {1 0 80; 1.5 0 50; 2 0 75; 2.5 0 50; 3 0 80; 3.5 0 50; 4 0 75; 4.5 0 55}
End
Begin Bass
  Voice FingeredBass
  Octave 3
  Volume f
  Articulate 85
  Sequence {1 4. 1 105; 2.5 8 5- 80; 3 8 1 95; 3.5 8 3 85; 4 4 5- 90} {1 4. 1 105; 2.5 8 1 80; 3 4 5- 95; 4 8 3 85; 4.5 8 5- 85}
End
Begin Chord-Skank
  Voice CleanGuitar
  Octave 5
  Volume mf
  Articulate 45
  Voicing Mode=Optimal
  Sequence {2 8 95; 4 8 95}
End
Begin Chord-Bubble
  Voice Organ1
  Octave 5
  Volume mp
  Articulate 60
  Voicing Mode=Optimal
  Sequence {1.5 16 55; 2.5 16 70; 3.5 16 55; 4.5 16 70}
End
DefGroove AMTReggae  One-drop reggae: kick and rim on 3, guitar skank on 2 and 4, organ bubble.
`

// reelGroove: a session reel or hornpipe in 4/4.
const reelGroove = `SeqClear
Time 4
TimeSig 4 4
SeqSize 2
Begin Drum-Bodhran
  Tone LowTom2
  Volume mf
  RVolume 6
  Sequence {1 0 105; 1.5 0 55; 2 0 75; 2.5 0 55; 3 0 95; 3.5 0 55; 4 0 75; 4.5 0 60} {1 0 105; 1.5 0 55; 2 0 75; 2.5 0 55; 3 0 95; 3.5 0 55; 4 0 80; 4.5 0 70; 4.75 0 60}
End
Begin Drum-Tambourine
  Tone Tambourine
  Volume mp
  Sequence {2 0 75; 4 0 75}
End
Begin Bass
  Voice AcousticBass
  Octave 3
  Volume mf
  Articulate 80
  Sequence {1 4 1 100; 3 4 5- 90} {1 4 1 100; 3 4 3 85}
End
Begin Chord
  Voice SteelGuitar
  Octave 5
  Volume mp
  Articulate 70
  Strum 5
  Voicing Mode=Optimal
  Sequence {1.5 8 60; 2 8 85; 2.5 8 60; 3.5 8 60; 4 8 85; 4.5 8 60}
End
DefGroove AMTReel  A session reel: bodhran-like low tom in eighths, tambourine on 2 and 4, boom-chick guitar.
`

// jigGroove: a session jig in 6/8, six MMA beats (eighths) to the bar.
const jigGroove = `SeqClear
Time 6
TimeSig 6 8
SeqSize 2
Begin Drum-Bodhran
  Tone LowTom2
  Volume mf
  RVolume 6
  Sequence {1 0 105; 2 0 55; 3 0 70; 4 0 95; 5 0 55; 6 0 70} {1 0 105; 2 0 55; 3 0 70; 4 0 95; 5 0 65; 6 0 80}
End
Begin Drum-Tambourine
  Tone Tambourine
  Volume mp
  Sequence {4 0 75}
End
Begin Bass
  Voice AcousticBass
  Octave 3
  Volume mf
  Articulate 80
  Sequence {1 2. 1 100; 4 2. 5- 90} {1 2. 1 100; 4 2. 3 85}
End
Begin Chord
  Voice SteelGuitar
  Octave 5
  Volume mp
  Articulate 70
  Strum 5
  Voicing Mode=Optimal
  Sequence {2 4 70; 3 4 80; 5 4 70; 6 4 80}
End
DefGroove AMTJig  A session jig in 6/8: low tom on the dotted-quarter beats, guitar on the off eighths.
`
