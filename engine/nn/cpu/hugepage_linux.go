package cpu

import (
	"syscall"
	"unsafe"
)

// hugePageMin is the size from which Alloc asks for transparent huge pages.
const hugePageMin = 4 << 20

// adviseHuge asks Linux to back s with transparent huge pages (2 MiB) where
// THP is in "madvise" mode, as on the dev VMs: a training step's ~0.3 GB of
// activations then faults in ~150 huge pages on first touch instead of ~75,000
// small ones, and the products' TLB misses drop. The range is trimmed inward
// to page boundaries; errors are ignored (the hint is optional).
func adviseHuge(s []float32) {
	if len(s)*4 < hugePageMin {
		return
	}
	const page = 4096
	p := unsafe.Pointer(&s[0])
	start := uintptr(p)
	end := start + uintptr(len(s))*4
	a := (start + page - 1) &^ (page - 1)
	e := end &^ (page - 1)
	if e <= a {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, a-start)), e-a)
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE
}
