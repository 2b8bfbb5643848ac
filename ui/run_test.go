package ui

import (
	"strings"
	"testing"
)

// Without an X11 or Wayland session the window is refused with a reason
// (GLFW would panic); with either, or on macOS and Windows, it may open.
func TestCheckDisplay(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	err := CheckDisplay("linux", env(nil))
	if err == nil || !strings.Contains(err.Error(), "DISPLAY") || !strings.Contains(err.Error(), "amt help") {
		t.Fatalf("linux without a display: %v", err)
	}
	for _, c := range []struct {
		goos string
		vars map[string]string
	}{
		{"linux", map[string]string{"DISPLAY": ":0"}},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}},
		{"freebsd", map[string]string{"DISPLAY": ":1"}},
		{"darwin", nil},
		{"windows", nil},
	} {
		if err := CheckDisplay(c.goos, env(c.vars)); err != nil {
			t.Errorf("%s %v: %v", c.goos, c.vars, err)
		}
	}
	if CheckDisplay("freebsd", env(nil)) == nil {
		t.Error("freebsd without a display: no error")
	}
}
