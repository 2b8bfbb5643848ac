package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	file := filepath.Join("..", "..", "engine", "midi", "testdata", "hand.mid")
	code, out, errOut := runCLI("inspect", file, "--json")
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	// hand.mid is engine/midi's hand-built song: 3/4, 120 then 60 bpm,
	// D minor key signature, 4 notes over 4.5 s, program 5 and drums.
	want := map[string]any{"format": 0.0, "tracks": 2.0, "ticks_per_beat": 96.0, "duration_seconds": 4.5,
		"tempo_bpm": 120.0, "tempo_changes": 1.0, "time_signature": "3/4", "key": "D minor",
		"has_drums": true, "notes": 4.0, "title": "Song"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if progs, ok := m["programs"].([]any); !ok || len(progs) != 1 || progs[0] != 5.0 {
		t.Errorf("programs %v", m["programs"])
	}
	if _, ok := m["bars"]; !ok {
		t.Errorf("no bars in %s", out)
	}
	code, out, _ = runCLI("inspect", "--json", "--compact", file)
	if code != 0 || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("compact: code %d, %q", code, out)
	}

	code, out, _ = runCLI("inspect", file)
	for _, s := range []string{"D minor", "3/4", "Electric Piano 2", "drums", "0:04.5"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("table lacks %q (code %d):\n%s", s, code, out)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "song.mid")
	if err := os.WriteFile(bad, []byte("MThd\x00\x00\x00\x06\x00\x00\x00\x01\x00\x60MTrk\x00\x00\x00\x03\x00\x90\x3c"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI("inspect", bad, "--json")
	if code != 1 || out != "" || !strings.Contains(errOut, "song.mid: track 0: truncated event at byte 22") {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, _ := runCLI("inspect"); code != 2 {
		t.Errorf("no file: code %d, want 2", code)
	}
	if code, _, errOut := runCLI("inspect", filepath.Join(t.TempDir(), "missing.mid")); code != 1 || !strings.Contains(errOut, "missing.mid") {
		t.Errorf("missing file: code %d, stderr %q", code, errOut)
	}
}
