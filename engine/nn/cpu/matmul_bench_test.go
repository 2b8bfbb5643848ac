package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// trainShapes are the products of one small-preset training step at
// B·T = 2048: (N, C, OC, wT).
var trainShapes = []struct {
	name     string
	N, C, OC int
	wT       bool
}{
	{"qkv", 2048, 256, 768, false},
	{"attproj", 2048, 256, 256, false},
	{"fc", 2048, 256, 1024, false},
	{"fcproj", 2048, 1024, 256, false},
	{"lmhead", 2048, 256, 1030, true},
}

// BenchmarkMatmulShapes reports GFLOP/s of the engine's forward and backward
// on each training shape, one worker, next to one single-threaded OpenBLAS
// call of the forward shape (the same-run baseline).
func BenchmarkMatmulShapes(b *testing.B) {
	be := NewWorkers(1)
	defer be.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range trainShapes {
		N, C, OC := sh.N, sh.C, sh.OC
		inp, w, bias := randBuf(be, rng, N*C, 1), randBuf(be, rng, C*OC, 1), randBuf(be, rng, OC, 1)
		out, dout := be.Alloc(N*OC), randBuf(be, rng, N*OC, 1)
		dinp, dw, db := be.Alloc(N*C), be.Alloc(C*OC), be.Alloc(OC)
		flop := 2 * float64(N*C*OC)
		ldw := OC
		if sh.wT {
			ldw = C
		}
		b.Run(fmt.Sprintf("%s/openblas-1t", sh.name), func(b *testing.B) {
			for range b.N {
				sgemm(false, sh.wT, N, OC, C, 1, inp.Host(), C, w.Host(), ldw, 0, out.Host(), OC)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("%s/forward", sh.name), func(b *testing.B) {
			for range b.N {
				be.MatmulForward(out, inp, w, bias, N, C, OC, sh.wT)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("%s/backward", sh.name), func(b *testing.B) {
			for range b.N {
				be.MatmulBackward(dinp, dw, db, dout, inp, w, N, C, OC, sh.wT)
			}
			b.ReportMetric(2*flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
