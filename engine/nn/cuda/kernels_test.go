package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// Every kernel the Go side launches is declared extern "C" __global__ in
// the CUDA C sources (a name typo would otherwise surface only on a GPU).
func TestKernelSources(t *testing.T) {
	src, err := kernelSources()
	if err != nil {
		t.Fatal(err)
	}
	if len(src) == 0 {
		t.Fatal("no kernels/*.cu embedded")
	}
	all := ""
	for _, s := range src {
		all += s + expandKernelMacros(s)
	}
	for _, name := range kernelNames {
		re := regexp.MustCompile(`extern "C" __global__ void ` + regexp.QuoteMeta(name) + `\(`)
		if !re.MatchString(all) {
			t.Errorf("kernel %s: no `extern \"C\" __global__ void %s(` in kernels/*.cu", name, name)
		}
	}
}

// The committed PTX holds an entry for every kernel, was made from the
// committed sources (kernels/ptx.sum, written by scripts/gen_ptx.sh), and
// targets compute_80 so it JITs on A100 and H100.
func TestPTXMatchesSources(t *testing.T) {
	imgs, err := ptxImages()
	if errors.Is(err, ErrNoPTX) {
		t.Skip("PTX not generated yet (run go generate ./engine/nn/cuda on a machine with nvcc)")
	}
	if err != nil {
		t.Fatal(err)
	}
	all := ""
	for _, im := range imgs {
		s := string(im.data)
		if !strings.Contains(s, ".target sm_80") {
			t.Errorf("%s: not compute_80 PTX", im.name)
		}
		all += s
	}
	for _, name := range kernelNames {
		if !strings.Contains(all, ".entry "+name+"(") {
			t.Errorf("kernel %s: no .entry in the embedded PTX (regenerate with go generate)", name)
		}
	}
	sum, err := kernelFS.ReadFile("kernels/ptx.sum")
	if err != nil {
		t.Fatalf("kernels/ptx.sum missing: %v", err)
	}
	src, err := kernelSources()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(sum)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("ptx.sum: bad line %q", line)
		}
		listed[f[1]] = true
		body, ok := src[f[1]]
		if !ok {
			t.Errorf("ptx.sum lists %s, which is gone: regenerate the PTX", f[1])
			continue
		}
		h := sha256.Sum256([]byte(body))
		if hex.EncodeToString(h[:]) != f[0] {
			t.Errorf("%s changed since the PTX was generated: run go generate ./engine/nn/cuda with nvcc", f[1])
		}
	}
	for name := range src {
		if !listed[name] {
			t.Errorf("%s is not in ptx.sum: regenerate the PTX", name)
		}
		if strings.HasSuffix(name, ".cu") {
			ptx := strings.TrimSuffix(name, ".cu") + ".ptx"
			found := false
			for _, im := range imgs {
				found = found || im.name == ptx
			}
			if !found {
				t.Errorf("%s has no %s", name, ptx)
			}
		}
	}
}

func TestDriverErrors(t *testing.T) {
	e := &DriverError{Op: "cuMemAlloc_v2", Code: cudaErrorOutOfMemory, Name: resultName(cudaErrorOutOfMemory), Msg: "out of memory"}
	if got, want := e.Error(), "cuda: cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if errors.Is(e, ErrNoDevice) {
		t.Error("out of memory must not read as no device")
	}
	nodev := &DriverError{Op: "cuInit", Code: cudaErrorNoDevice, Name: resultName(cudaErrorNoDevice)}
	if !errors.Is(nodev, ErrNoDevice) {
		t.Error("CUDA_ERROR_NO_DEVICE must match ErrNoDevice")
	}
	if !strings.Contains(ErrNoPTX.Error(), "go generate") {
		t.Errorf("ErrNoPTX should say how to fix it: %q", ErrNoPTX)
	}
	if resultName(12345) != "CUresult(12345)" || cublasStatusName(13) != "CUBLAS_STATUS_EXECUTION_FAILED" {
		t.Error("status names")
	}
}

func TestParsePrecision(t *testing.T) {
	for in, want := range map[string]Precision{"": BF16, "bf16": BF16, "TF32": TF32, "fp32": FP32, "f32": FP32} {
		got, err := ParsePrecision(in)
		if err != nil || got != want {
			t.Errorf("ParsePrecision(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParsePrecision("fp8"); err == nil {
		t.Error("fp8 accepted")
	}
	if BF16.String() != "bf16" || FP32.String() != "fp32" {
		t.Error("String")
	}
}

func TestOptionsFromEnv(t *testing.T) {
	t.Setenv("AMT_CUDA_DEVICE", "1")
	t.Setenv("AMT_CUDA_PRECISION", "tf32")
	o, err := OptionsFromEnv()
	if err != nil || o.Device != 1 || o.Precision != TF32 {
		t.Fatalf("got %+v, %v", o, err)
	}
	t.Setenv("AMT_CUDA_DEVICE", "gpu0")
	if _, err := OptionsFromEnv(); err == nil || !strings.Contains(err.Error(), "AMT_CUDA_DEVICE") {
		t.Fatalf("bad device accepted or unclear: %v", err)
	}
}

// expandKernelMacros writes out the declarations that one-parameter macros
// generate: for `#define M(P)` whose body declares `void NAME##P(` and each
// use `M(64)`, it returns `extern "C" __global__ void NAME64(`.
func expandKernelMacros(src string) string {
	def := regexp.MustCompile(`(?m)^#define (\w+)\((\w+)\)((?:.*\\\n)*.*)`)
	out := ""
	for _, m := range def.FindAllStringSubmatch(src, -1) {
		macro, param, body := m[1], m[2], m[3]
		decl := regexp.MustCompile(`extern "C" __global__ void (\w+)##` + param + `\(`)
		uses := regexp.MustCompile(`(?m)^` + macro + `\((\w+)\)`)
		for _, u := range uses.FindAllStringSubmatch(src, -1) {
			for _, d := range decl.FindAllStringSubmatch(body, -1) {
				out += "\nextern \"C\" __global__ void " + d[1] + u[1] + "("
			}
		}
	}
	return out
}
