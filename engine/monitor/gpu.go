package monitor

import (
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// nvmlMu serialises NVML Init/Shutdown: the library keeps a process-wide
// reference count.
var nvmlMu sync.Mutex

// gpuReader reads NVIDIA GPUs through NVML. NVML is called only after Init
// succeeded; otherwise err says why there is no GPU and read returns it.
type gpuReader struct {
	lib     nvml.Interface
	devices []nvml.Device
	names   []string
	err     error
}

// openGPU loads NVML from path ("" for the default libnvidia-ml.so.1),
// initialises it and lists the devices.
func openGPU(path string) *gpuReader {
	var opts []nvml.LibraryOption
	if path != "" {
		opts = append(opts, nvml.WithLibraryPath(path))
	}
	lib := nvml.New(opts...)
	nvmlMu.Lock()
	ret := lib.Init()
	nvmlMu.Unlock()
	if ret != nvml.SUCCESS {
		reason := ret.Error()
		if ret == nvml.ERROR_LIBRARY_NOT_FOUND {
			name := path
			if name == "" {
				name = "libnvidia-ml.so.1"
			}
			reason = "NVML library " + name + " not found (no NVIDIA driver)"
		}
		return &gpuReader{err: fmt.Errorf("%w: %s", ErrNoGPU, reason)}
	}
	g := &gpuReader{lib: lib}
	n, ret := lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		g.close()
		return &gpuReader{err: fmt.Errorf("%w: NVML device count: %s", ErrNoGPU, ret.Error())}
	}
	for i := 0; i < n; i++ {
		d, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		name, ret := d.GetName()
		if ret != nvml.SUCCESS {
			name = fmt.Sprintf("GPU %d", i)
		}
		g.devices = append(g.devices, d)
		g.names = append(g.names, name)
	}
	if len(g.devices) == 0 {
		g.close()
		return &gpuReader{err: fmt.Errorf("%w: NVML found no device", ErrNoGPU)}
	}
	return g
}

// read returns one GPUSample per device. A device whose query fails is
// left out and its error returned alongside the others' samples.
func (g *gpuReader) read() ([]GPUSample, error) {
	if g.lib == nil {
		return nil, g.err
	}
	out := make([]GPUSample, 0, len(g.devices))
	var firstErr error
	for i, d := range g.devices {
		u, ret := d.GetUtilizationRates()
		if ret != nvml.SUCCESS {
			if firstErr == nil {
				firstErr = fmt.Errorf("monitor: %s utilisation: %s", g.names[i], ret.Error())
			}
			continue
		}
		m, ret := d.GetMemoryInfo()
		if ret != nvml.SUCCESS {
			if firstErr == nil {
				firstErr = fmt.Errorf("monitor: %s memory: %s", g.names[i], ret.Error())
			}
			continue
		}
		s := GPUSample{Index: i, Name: g.names[i], UtilPercent: float64(u.Gpu), MemUsed: m.Used, MemTotal: m.Total}
		if m.Total > 0 {
			s.MemPercent = float64(m.Used) / float64(m.Total) * 100
		}
		out = append(out, s)
	}
	return out, firstErr
}

func (g *gpuReader) close() {
	if g.lib == nil {
		return
	}
	nvmlMu.Lock()
	g.lib.Shutdown()
	nvmlMu.Unlock()
	g.lib, g.devices = nil, nil
}
