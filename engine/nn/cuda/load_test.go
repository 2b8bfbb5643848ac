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

// The real default: on a machine without the library the exact message;
// with a driver but no GPU, ErrNoDevice; with a GPU, a working backend.
func TestOpenDefault(t *testing.T) {
	be, err := Open(Options{})
	switch {
	case err == nil:
		defer be.Close()
		t.Logf("opened: %s", be.Describe())
		if be.Name() != "cuda" {
			t.Errorf("Name = %q", be.Name())
		}
	case errors.Is(err, ErrNoDriver) && driverOK != "" && driverOK != "libcuda.so.1":
		// the cuda-tagged tests loaded the emulator's driver into this process first
		if !strings.Contains(err.Error(), "another CUDA driver ("+driverOK+") is loaded") {
			t.Errorf("err = %q", err)
		}
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

func TestMain(m *testing.M) {
	os.Unsetenv("AMT_CUDA_DRIVER")
	os.Exit(m.Run())
}
