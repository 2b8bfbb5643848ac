// Package synth owns turning a Score into sound: a SoundFont 2.04
// synthesizer (RIFF sfbk reader, presets → instruments → zones, generators,
// default modulators, sample loops, envelopes, LFOs, resonant low-pass,
// pan, pitch bend, sustain pedal, drum kits on bank 128, voice stealing,
// optional reverb and chorus) and a built-in synthesizer with simple timbres
// per General MIDI family for machines without a SoundFont. Both sit behind
// one Renderer interface that renders a whole Score to stereo float32 PCM or
// streams it block by block for playback; a Synth takes live events. A
// Score's last note ends within MaxSeconds, which CheckScore checks before
// any work (Render does; callers of Stream check first).
//
// It imports engine/midi only, and must never import app/, ui/, storage/
// or engine/audio (audio depends on synth, not the other way round).
package synth
