package ui

import (
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/amtstudio/amt/app"
)

// The reason shown on the GPU line is the cause at the end of the chain,
// a clean clause: a parenthesised aside (dlopen's message, a result code)
// is left to Details, and a cause that does not say what is missing is
// told under the kind of failure the chain names ("no NVIDIA driver").
func TestShortReason(t *testing.T) {
	for _, c := range []struct{ why, want string }{
		// What CI's machine says (no GPU).
		{"nn: open cuda: no CUDA device: libcuda.so.1 loaded but cuInit failed: cuda: cuInit: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected",
			"no CUDA-capable device is detected"},
		// A machine without the driver (it read "No such file or directory)").
		{"nn: open cuda: no NVIDIA driver: libcuda.so.1 not found (libcuda.so.1: cannot open shared object file: No such file or directory)",
			"no NVIDIA driver (libcuda.so.1 not found)"},
		{"nn: open cuda: no cuBLAS library: none of libcublas.so.12, libcublas.so.11 found",
			"no cuBLAS library (none of libcublas.so.12, libcublas.so.11 found)"},
		{"nn: open cuda: no NVIDIA driver: /x/libcuda.so.1 is not a CUDA driver: missing symbol cuMemAlloc_v2",
			"no NVIDIA driver (missing symbol cuMemAlloc_v2)"},
		{"libcuda.so.1 not found", "libcuda.so.1 not found"},
		{"nn: open cuda: cuda: cuInit: CUDA_ERROR_UNKNOWN (999)", "CUDA_ERROR_UNKNOWN"},
		{"open: EOF", "open: EOF"}, // a clause too short to stand alone keeps the chain
		{"  spaced  ", "spaced"},
		{strings.Repeat("é", 100), strings.Repeat("é", 79) + "…"},
	} {
		if got := shortReason(c.why); got != c.want {
			t.Errorf("shortReason(%q) = %q, want %q", c.why, got, c.want)
		}
	}
}

// The Training screen's GPU line is one short sentence once the check is
// done; Details opens the whole reason and how far the GPU path is
// verified.
func TestTrainingGPULineAndDetails(t *testing.T) {
	a := test.NewTempApp(t)
	s := testShell(t, a, tempStudio(t), nil)
	s.Window.Resize(fyne.NewSize(1100, 720))
	if err := s.Select("training"); err != nil {
		t.Fatal(err)
	}
	tr := s.Training
	if !tr.gpuDetails.Disabled() {
		t.Error("Details enabled before the check is done")
	}
	waitFor(t, func() bool { return tr.gpuWhy != "" })
	ok, why := app.GPUAvailable()
	if n := utf8.RuneCountInString(tr.gpuWhy); n > 100 || !strings.HasPrefix(tr.gpuWhy, "GPU") {
		t.Errorf("GPU line %q (%d characters), want a short sentence starting with GPU", tr.gpuWhy, n)
	}
	if !ok && tr.gpuWhy != "GPU unavailable: "+shortReason(why)+"." {
		t.Errorf("GPU line %q for %q", tr.gpuWhy, why)
	}
	if tr.gpuDetails.Disabled() {
		t.Fatal("Details still disabled")
	}
	test.Tap(tr.gpuDetails)
	top := s.Window.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Details opened nothing")
	}
	text := strings.Join(labelTexts(top), "\n")
	if !strings.Contains(text, why) || !strings.Contains(text, app.GPUVerification) {
		t.Errorf("Details says %q, want the whole reason %q and the verification", text, why)
	}
	s.settle()
	captureShell(t, s, "training-gpu-details")
}

// labelTexts collects the text of the labels in o's tree.
func labelTexts(o fyne.CanvasObject) []string {
	var out []string
	switch x := o.(type) {
	case *widget.Label:
		return []string{x.Text}
	case *fyne.Container:
		for _, c := range x.Objects {
			out = append(out, labelTexts(c)...)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			out = append(out, labelTexts(c)...)
		}
	}
	return out
}
