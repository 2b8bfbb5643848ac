package monitor

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v3/disk"
)

// memTotal reads MemTotal from /proc/meminfo (independent of gopsutil).
func memTotal(t *testing.T) uint64 {
	t.Helper()
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Skipf("no /proc/meminfo: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 2 && fs[0] == "MemTotal:" {
			kb, err := strconv.ParseUint(fs[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb * 1024
		}
	}
	t.Skip("MemTotal not in /proc/meminfo")
	return 0
}

func rusageCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// spin keeps one goroutine busy for d.
func spin(d time.Duration) {
	end := time.Now().Add(d)
	x := 0
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			x += i
		}
	}
	_ = x
}

func TestReaderValuesInRange(t *testing.T) {
	ctx := context.Background()
	r, err := NewReader(ctx, Options{NoGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cpu0, t0 := rusageCPU(t), time.Now()
	spin(400 * time.Millisecond)
	s, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cpu1, t1 := rusageCPU(t), time.Now()

	if s.Cores < 1 {
		t.Errorf("cores = %d", s.Cores)
	}
	if s.CPUPercent <= 0 || s.CPUPercent > 100 {
		t.Errorf("machine CPU %% = %.1f, want in (0,100] while a goroutine spins", s.CPUPercent)
	}
	// Our own CPU time from getrusage over the same window, as a share of
	// the machine, brackets the sampler's figure.
	want := (cpu1 - cpu0) / t1.Sub(t0).Seconds() / float64(s.Cores) * 100
	if s.ProcCPUPercent < want*0.5 || s.ProcCPUPercent > want*1.5+5 {
		t.Errorf("process CPU %% = %.1f, getrusage says about %.1f", s.ProcCPUPercent, want)
	}
	if s.ProcCPUPercent > s.CPUPercent+5 {
		t.Errorf("process CPU %.1f%% above machine %.1f%%", s.ProcCPUPercent, s.CPUPercent)
	}
	if mt := memTotal(t); s.RAMTotal != mt {
		t.Errorf("RAM total = %d, /proc/meminfo says %d", s.RAMTotal, mt)
	}
	if s.RAMUsed == 0 || s.RAMUsed > s.RAMTotal {
		t.Errorf("RAM used = %d of %d", s.RAMUsed, s.RAMTotal)
	}
	if s.RAMPercent <= 0 || s.RAMPercent > 100 {
		t.Errorf("RAM %% = %.1f", s.RAMPercent)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if s.ProcRSS < 1<<20 || s.ProcRSS > s.RAMTotal {
		t.Errorf("process RSS = %d bytes (Go heap sys %d)", s.ProcRSS, ms.Sys)
	}
	if s.DiskReadBps < 0 || s.DiskWriteBps < 0 {
		t.Errorf("disk rates %.0f/%.0f", s.DiskReadBps, s.DiskWriteBps)
	}
	if len(s.GPUs) != 0 || !strings.HasPrefix(s.GPUStatus, "no GPU: ") {
		t.Errorf("GPU off: GPUs=%v status=%q", s.GPUs, s.GPUStatus)
	}
}

func TestDiskWriteIsSeen(t *testing.T) {
	ctx := context.Background()
	if m, err := disk.IOCountersWithContext(ctx); err != nil || len(m) == 0 {
		t.Skipf("no disk counters here: %v", err)
	}
	r, err := NewReader(ctx, Options{NoGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Write and fsync 8 MiB so the block layer must see it.
	f, err := os.Create(filepath.Join(t.TempDir(), "io.bin"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for i := 0; i < 8; i++ {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := r.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.DiskWriteBps <= 0 {
		t.Skipf("8 MiB fsynced but no disk writes counted (tmpfs or virtual disk?): %+v", s)
	}
}

func TestNoGPUReportsReason(t *testing.T) {
	r, err := NewReader(context.Background(), Options{NVMLLibrary: "/nonexistent/libnvidia-ml.so.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gerr := r.GPUError()
	if !errors.Is(gerr, ErrNoGPU) {
		t.Fatalf("GPUError = %v, want ErrNoGPU", gerr)
	}
	if msg := gerr.Error(); !strings.HasPrefix(msg, "no GPU: ") || !strings.Contains(msg, "/nonexistent/libnvidia-ml.so.1") {
		t.Errorf("message %q: want \"no GPU: <reason naming the library>\"", msg)
	}
	s, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.GPUs) != 0 || s.GPUStatus != gerr.Error() {
		t.Errorf("sample GPUs=%v status=%q", s.GPUs, s.GPUStatus)
	}
}

// TestDefaultGPU uses the real NVML when there is one: either GPUs with
// values in range, or a clean "no GPU" reason.
func TestDefaultGPU(t *testing.T) {
	r, err := NewReader(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := r.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if gerr := r.GPUError(); gerr != nil {
		if !errors.Is(gerr, ErrNoGPU) || !strings.HasPrefix(s.GPUStatus, "no GPU: ") {
			t.Errorf("GPUError %v, status %q", gerr, s.GPUStatus)
		}
		t.Logf("this machine: %s", gerr)
		return
	}
	if len(s.GPUs) == 0 {
		t.Fatalf("NVML up but no GPU samples: %q", s.GPUStatus)
	}
	for _, g := range s.GPUs {
		t.Logf("GPU %d %s: util %.0f%%, memory %d/%d MiB", g.Index, g.Name, g.UtilPercent, g.MemUsed>>20, g.MemTotal>>20)
		if g.UtilPercent < 0 || g.UtilPercent > 100 || g.MemTotal == 0 || g.MemUsed > g.MemTotal || g.Name == "" {
			t.Errorf("GPU sample out of range: %+v", g)
		}
	}
}

func TestWholeDisk(t *testing.T) {
	all := map[string]disk.IOCountersStat{}
	for _, n := range []string{"sda", "sda1", "sda2", "nvme0n1", "nvme0n1p1", "vda", "vda15", "loop0", "dm-0", "zram0", "md0", "sr0", "mmcblk0", "mmcblk0p1"} {
		all[n] = disk.IOCountersStat{}
	}
	want := map[string]bool{"sda": true, "sda1": false, "sda2": false, "nvme0n1": true, "nvme0n1p1": false,
		"vda": true, "vda15": false, "loop0": false, "dm-0": false, "zram0": false, "md0": false, "sr0": false,
		"mmcblk0": true, "mmcblk0p1": false}
	for n, w := range want {
		if got := wholeDisk(n, all); got != w {
			t.Errorf("wholeDisk(%s) = %v, want %v", n, got, w)
		}
	}
}

func TestClampPct(t *testing.T) {
	nan := 0.0
	nan = nan / nan
	for _, c := range []struct{ in, want float64 }{{-3, 0}, {0, 0}, {42.5, 42.5}, {100, 100}, {140, 100}, {nan, 0}} {
		if got := clampPct(c.in); got != c.want {
			t.Errorf("clampPct(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
