package cuda

//go:generate bash ../../../scripts/gen_ptx.sh

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// kernelFS holds the CUDA C sources and, once `go generate` has run on a
// machine with nvcc, their PTX (kernels/NAME.ptx). Embedding the folder (not
// *.ptx) keeps the build working before any PTX exists.
//
//go:embed kernels
var kernelFS embed.FS

type ptxImage struct {
	name string
	data []byte
}

// ptxImages returns the embedded PTX modules, or ErrNoPTX when there are none.
func ptxImages() ([]ptxImage, error) {
	ents, err := fs.ReadDir(kernelFS, "kernels")
	if err != nil {
		return nil, fmt.Errorf("cuda: embedded kernels: %w", err)
	}
	var out []ptxImage
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".ptx") {
			continue
		}
		data, err := kernelFS.ReadFile(path.Join("kernels", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("cuda: embedded %s: %w", e.Name(), err)
		}
		out = append(out, ptxImage{name: e.Name(), data: data})
	}
	if len(out) == 0 {
		return nil, ErrNoPTX
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// kernelSources returns the embedded CUDA C files by name.
func kernelSources() (map[string]string, error) {
	ents, err := fs.ReadDir(kernelFS, "kernels")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".cu") || strings.HasSuffix(e.Name(), ".cuh") {
			data, err := kernelFS.ReadFile(path.Join("kernels", e.Name()))
			if err != nil {
				return nil, err
			}
			out[e.Name()] = string(data)
		}
	}
	return out, nil
}
