// Package monitor owns the resource samplers of AMT Studio: CPU % (whole
// machine and one process), RAM (used/total and the process's resident set),
// disk I/O bytes per second through gopsutil, and GPU utilisation and memory
// through NVML, which is loaded at run time (github.com/NVIDIA/go-nvml), so a
// machine without a GPU or driver gets a clean "no GPU: <reason>" status.
//
// A Reader takes one Sample on demand (rates are measured since the previous
// Read); a Sampler runs a Reader on an interval in its own goroutine and
// emits Samples on a channel.
//
// It is part of the engine: it must never import app/, ui/ or storage/.
package monitor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v3/cpu"
	"github.com/shirou/gopsutil/v3/disk"
	"github.com/shirou/gopsutil/v3/mem"
	"github.com/shirou/gopsutil/v3/process"
)

// ErrNoGPU is wrapped by the GPU status error when no GPU can be sampled
// (no NVML library, no driver, no device).
var ErrNoGPU = errors.New("no GPU")

// Sample is one reading of the machine's resources.
type Sample struct {
	Time time.Time
	// CPUPercent is the whole machine's busy share since the previous
	// reading, 0–100 (all cores together).
	CPUPercent float64
	// ProcCPUPercent is the watched process's CPU use since the previous
	// reading as a share of the whole machine, 0–100 (a process keeping
	// one of two cores busy reads 50).
	ProcCPUPercent float64
	// Cores is the number of logical CPUs the percentages are shares of.
	Cores int

	RAMUsed    uint64  // bytes in use (total − available)
	RAMTotal   uint64  // bytes
	RAMPercent float64 // RAMUsed / RAMTotal × 100
	ProcRSS    uint64  // resident set of the watched process, bytes

	// DiskReadBps and DiskWriteBps are bytes per second read from and
	// written to whole disks (partitions, loop, RAM and device-mapper
	// devices are left out so no byte counts twice) since the previous reading.
	DiskReadBps  float64
	DiskWriteBps float64

	// GPUs holds one entry per NVIDIA GPU; empty when there is none.
	GPUs []GPUSample
	// GPUStatus is empty when GPUs were read, else "no GPU: <reason>" or
	// the error of the last GPU query.
	GPUStatus string
}

// GPUSample is one GPU's reading.
type GPUSample struct {
	Index       int
	Name        string
	UtilPercent float64 // share of time a kernel was running, 0–100
	MemUsed     uint64  // bytes
	MemTotal    uint64  // bytes
	MemPercent  float64 // MemUsed / MemTotal × 100
}

// Options configure a Reader or Sampler. The zero value watches this
// process, samples every second and tries the GPU.
type Options struct {
	// Interval between samples of a Sampler; 0 means one second.
	Interval time.Duration
	// PID is the process to watch; 0 means this process.
	PID int32
	// NoGPU skips NVML entirely.
	NoGPU bool
	// NVMLLibrary overrides the NVML shared library path (default
	// libnvidia-ml.so.1), mostly for tests.
	NVMLLibrary string
}

// Reader takes Samples on demand. It is not safe for concurrent use.
type Reader struct {
	proc  *process.Process
	cores int
	gpu   *gpuReader

	lastTime  time.Time
	lastBusy  float64 // machine CPU seconds busy (all cores)
	lastTotal float64 // machine CPU seconds in all (all cores)
	lastProc  float64 // process CPU seconds
	lastRead  uint64
	lastWrite uint64
	haveDisk  bool
	closed    bool
}

// NewReader opens a Reader: it records the baseline counters (so the
// first Read reports rates since now) and tries NVML unless opts.NoGPU.
// A missing GPU is not an error; see GPUError.
func NewReader(ctx context.Context, opts Options) (*Reader, error) {
	pid := opts.PID
	if pid == 0 {
		pid = int32(os.Getpid())
	}
	p, err := process.NewProcessWithContext(ctx, pid)
	if err != nil {
		return nil, fmt.Errorf("monitor: process %d: %w", pid, err)
	}
	r := &Reader{proc: p, cores: runtime.NumCPU()}
	if n, err := cpu.CountsWithContext(ctx, true); err == nil && n > 0 {
		r.cores = n
	}
	if err := r.baseline(ctx); err != nil {
		return nil, err
	}
	if opts.NoGPU {
		r.gpu = &gpuReader{err: fmt.Errorf("%w: GPU sampling turned off", ErrNoGPU)}
	} else {
		r.gpu = openGPU(opts.NVMLLibrary)
	}
	return r, nil
}

func (r *Reader) baseline(ctx context.Context) error {
	busy, total, err := machineCPU(ctx)
	if err != nil {
		return err
	}
	pc, err := r.procCPU(ctx)
	if err != nil {
		return err
	}
	r.lastTime, r.lastBusy, r.lastTotal, r.lastProc = time.Now(), busy, total, pc
	if rd, wr, err := diskBytes(ctx); err == nil {
		r.lastRead, r.lastWrite, r.haveDisk = rd, wr, true
	}
	return nil
}

// GPUError returns nil when GPUs are sampled, else an error wrapping
// ErrNoGPU whose text is "no GPU: <reason>".
func (r *Reader) GPUError() error { return r.gpu.err }

// Read takes one Sample. CPU and disk rates cover the time since the
// previous Read (or NewReader).
func (r *Reader) Read(ctx context.Context) (Sample, error) {
	if r.closed {
		return Sample{}, errors.New("monitor: read after Close")
	}
	now := time.Now()
	s := Sample{Time: now, Cores: r.cores}
	dt := now.Sub(r.lastTime).Seconds()

	busy, total, err := machineCPU(ctx)
	if err != nil {
		return s, err
	}
	if d := total - r.lastTotal; d > 0 {
		s.CPUPercent = clampPct((busy - r.lastBusy) / d * 100)
	}
	pc, err := r.procCPU(ctx)
	if err != nil {
		return s, err
	}
	if dt > 0 {
		s.ProcCPUPercent = clampPct((pc - r.lastProc) / dt / float64(r.cores) * 100)
	}
	r.lastBusy, r.lastTotal, r.lastProc = busy, total, pc

	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return s, fmt.Errorf("monitor: memory: %w", err)
	}
	s.RAMTotal = vm.Total
	if vm.Available <= vm.Total {
		s.RAMUsed = vm.Total - vm.Available
	}
	if s.RAMTotal > 0 {
		s.RAMPercent = float64(s.RAMUsed) / float64(s.RAMTotal) * 100
	}
	if mi, err := r.proc.MemoryInfoWithContext(ctx); err == nil {
		s.ProcRSS = mi.RSS
	} else {
		return s, fmt.Errorf("monitor: process %d memory: %w", r.proc.Pid, err)
	}

	if rd, wr, err := diskBytes(ctx); err == nil {
		if r.haveDisk && dt > 0 {
			if rd >= r.lastRead {
				s.DiskReadBps = float64(rd-r.lastRead) / dt
			}
			if wr >= r.lastWrite {
				s.DiskWriteBps = float64(wr-r.lastWrite) / dt
			}
		}
		r.lastRead, r.lastWrite, r.haveDisk = rd, wr, true
	}
	r.lastTime = now

	s.GPUs, err = r.gpu.read()
	if err != nil {
		s.GPUStatus = err.Error()
	}
	return s, nil
}

// Close releases NVML. The Reader cannot be used afterwards.
func (r *Reader) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.gpu.close()
}

// machineCPU returns the machine's busy and total CPU seconds (all cores).
func machineCPU(ctx context.Context) (busy, total float64, err error) {
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil {
		return 0, 0, fmt.Errorf("monitor: cpu times: %w", err)
	}
	if len(ts) == 0 {
		return 0, 0, errors.New("monitor: cpu times: none reported")
	}
	t := ts[0]
	// Guest time is already counted in user time on Linux.
	total = t.User + t.System + t.Idle + t.Nice + t.Iowait + t.Irq + t.Softirq + t.Steal
	busy = total - t.Idle - t.Iowait
	return busy, total, nil
}

func (r *Reader) procCPU(ctx context.Context) (float64, error) {
	t, err := r.proc.TimesWithContext(ctx)
	if err != nil {
		return 0, fmt.Errorf("monitor: process %d cpu times: %w", r.proc.Pid, err)
	}
	return t.User + t.System, nil
}

// diskBytes sums read and written bytes over whole disks.
func diskBytes(ctx context.Context) (read, written uint64, err error) {
	m, err := disk.IOCountersWithContext(ctx)
	if err != nil {
		return 0, 0, err
	}
	for name, c := range m {
		if !wholeDisk(name, m) {
			continue
		}
		read += c.ReadBytes
		written += c.WriteBytes
	}
	return read, written, nil
}

// wholeDisk reports whether the named block device is a physical disk
// rather than a partition of one listed (sda1 of sda, nvme0n1p2 of
// nvme0n1) or a virtual device stacked on disks (loop, ram, zram, dm-, md).
func wholeDisk(name string, all map[string]disk.IOCountersStat) bool {
	for _, p := range []string{"loop", "ram", "zram", "dm-", "md", "sr"} {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	for other := range all {
		if other != name && strings.HasPrefix(name, other) {
			rest := strings.TrimPrefix(strings.TrimPrefix(name, other), "p")
			if rest != "" && strings.Trim(rest, "0123456789") == "" {
				return false
			}
		}
	}
	return true
}

func clampPct(v float64) float64 {
	switch {
	case v < 0 || v != v:
		return 0
	case v > 100:
		return 100
	}
	return v
}
