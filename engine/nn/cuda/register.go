package cuda

import (
	"os"
	"strconv"

	"github.com/amtstudio/amt/engine/nn"
)

// The backend registers itself, ollama-style; nn.OpenBackend("auto") tries it
// before the CPU. The environment can pick the device ordinal
// (AMT_CUDA_DEVICE) and the matmul precision (AMT_CUDA_PRECISION: bf16, tf32,
// fp32) until the CLI grows flags for them.
func init() {
	nn.RegisterBackend("cuda", 100, func() (nn.Backend, error) {
		o, err := OptionsFromEnv()
		if err != nil {
			return nil, err
		}
		be, err := Open(o)
		if err != nil {
			return nil, err
		}
		return be, nil
	})
}

// OptionsFromEnv reads AMT_CUDA_DEVICE and AMT_CUDA_PRECISION.
func OptionsFromEnv() (Options, error) {
	var o Options
	if s := os.Getenv("AMT_CUDA_DEVICE"); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil || d < 0 {
			return o, &envError{name: "AMT_CUDA_DEVICE", value: s}
		}
		o.Device = d
	}
	p, err := ParsePrecision(os.Getenv("AMT_CUDA_PRECISION"))
	if err != nil {
		return o, err
	}
	o.Precision = p
	return o, nil
}

type envError struct{ name, value string }

func (e *envError) Error() string {
	return "cuda: " + e.name + "=" + strconv.Quote(e.value) + " is not a device ordinal"
}
