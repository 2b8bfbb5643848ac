//go:build cgo && linux

package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With no driver library the error says so in the words the user sees.
func TestOpenWithoutDriver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libcuda.so.1") // does not exist
	_, err := Open(Options{DriverPath: path})
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("err = %v, want ErrNoDriver", err)
	}
	if want := "no NVIDIA driver: " + path + " not found"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want prefix %q", err, want)
	}
}

// A file that is not a library, and a library that is not the driver.
func TestOpenFakeDriver(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "libcuda.so.1")
	if err := os.WriteFile(fake, []byte("this is not a shared library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Options{DriverPath: fake})
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "is not a loadable library") {
		t.Errorf("text file as driver: %v", err)
	}
	_, err = Open(Options{DriverPath: "libm.so.6"})
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "is not a CUDA driver: missing symbol cuInit") {
		t.Errorf("libm as driver: %v", err)
	}
}

// The environment variable points the loader elsewhere too.
func TestOpenDriverFromEnv(t *testing.T) {
	t.Setenv("AMT_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
	_, err := Open(Options{})
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "/nonexistent/libcuda.so.1 not found") {
		t.Errorf("err = %v", err)
	}
}

// The default driver (no path given): on a machine without the library the
// exact message; with a driver but no GPU, ErrNoDevice; with a GPU, a
// working backend. Under the CUDA emulator TestMain makes the emulator this
// process's driver, so the default opens it whatever ran first.
func TestOpenDefault(t *testing.T) {
	be, err := Open(Options{})
	switch {
	case err == nil:
		defer be.Close()
		t.Logf("opened: %s", be.Describe())
		if be.Name() != "cuda" {
			t.Errorf("Name = %q", be.Name())
		}
	case os.Getenv("AMT_CUDA_EMU") != "":
		t.Fatalf("the emulator is this process's driver, yet the default did not open: %v", err)
	case errors.Is(err, ErrNoDriver):
		if !strings.HasPrefix(err.Error(), "no NVIDIA driver: libcuda.so.1 not found") {
			t.Errorf("err = %q", err)
		}
	case errors.Is(err, ErrNoDevice), errors.Is(err, ErrNoCUBLAS):
		t.Logf("driver present, no usable GPU here: %v", err)
	default:
		t.Fatalf("unexpected error class: %v", err)
	}
}

func TestLoadCublasMissing(t *testing.T) {
	_, err := loadCublas([]string{"/nonexistent/libcublas.so.13", "/nonexistent/libcublas.so.12"})
	if !errors.Is(err, ErrNoCUBLAS) || !strings.Contains(err.Error(), "libcublas.so.12") {
		t.Errorf("err = %v", err)
	}
	_, err = loadCublas([]string{"libm.so.6"})
	if !errors.Is(err, ErrNoCUBLAS) || !strings.Contains(err.Error(), "lacks cublasCreate_v2") {
		t.Errorf("libm as cuBLAS: %v", err)
	}
}

// TestMain fixes the process-wide state every test of this package shares:
// a process holds one CUDA driver, loaded at most once (backend.go). Without
// the emulator no driver is named, so the default probe is the machine's
// real one. Under the emulator (AMT_CUDA_EMU) the emulator is named as the
// process's driver and cuBLAS before any test runs, so that no test, in any
// order (-shuffle), loads the machine's own libcuda.so.1, if it has one,
// before the emulator: the outcome depends neither on order nor on what the
// machine has installed.
func TestMain(m *testing.M) {
	os.Unsetenv("AMT_CUDA_DRIVER")
	os.Unsetenv("AMT_CUBLAS")
	if d := os.Getenv("AMT_CUDA_EMU"); d != "" {
		os.Setenv("AMT_CUDA_DRIVER", filepath.Join(d, "libcuda.so.1"))
		os.Setenv("AMT_CUBLAS", filepath.Join(d, "libcublas.so.12"))
	}
	os.Exit(m.Run())
}
