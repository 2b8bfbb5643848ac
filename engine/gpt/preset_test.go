package gpt

import "testing"

// TestPresetSizes: each preset's parameter count with the default
// vocabulary (1,050 tokens) against the count by hand, V·C + P·C +
// L·(12C² + 13C) + 2C (embeddings, positions, per layer four products with
// biases and two layer norms, the final layer norm); the presets in size
// order; head size 64 from small up (the GPU's tensor-core attention).
func TestPresetSizes(t *testing.T) {
	want := map[string]int{
		"small":  1050*256 + 1024*256 + 4*(12*256*256+13*256) + 2*256, // 3,690,496
		"medium": 1050*256 + 1024*256 + 6*(12*256*256+13*256) + 2*256, // 5,270,016
		"base":   1050*512 + 1024*512 + 8*(12*512*512+13*512) + 2*512, // 26,281,984
	}
	prev := 0
	for _, name := range PresetNames() {
		c, err := Preset(name, 1050)
		if err != nil {
			t.Fatal(err)
		}
		n := c.NumParams()
		if w, ok := want[name]; ok && n != w {
			t.Errorf("%s: %d parameters, by hand %d", name, n, w)
		}
		if n <= prev {
			t.Errorf("%s: %d parameters, not more than the preset before (%d)", name, n, prev)
		}
		prev = n
		if name != "tiny" && c.NEmbd/c.NHead != 64 {
			t.Errorf("%s: head size %d, want 64", name, c.NEmbd/c.NHead)
		}
	}
}
