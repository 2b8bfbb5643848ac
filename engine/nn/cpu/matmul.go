package cpu

import "github.com/amtstudio/amt/engine/nn"

type mmMode int

const (
	mmFwdRows  mmMode = iota // forward, split over rows of out
	mmFwdCols                // forward, split over columns of out (few rows: sampling)
	mmBackInp                // dinp, split over rows
	mmBackW                  // dW, split over rows of dW
	mmBackBias               // dbias, split over columns
)

type mmJob struct {
	mode                        mmMode
	out, inp, w, bias, dout, dw []float32
	N, C, OC                    int
	wT                          bool
}

func (j *mmJob) Do(lo, hi, _ int) {
	N, C, OC := j.N, j.C, j.OC
	ldw := OC
	if j.wT {
		ldw = C
	}
	switch j.mode {
	case mmFwdRows:
		out := j.out[lo*OC : hi*OC]
		fillBias(out, j.bias, OC)
		sgemm(false, j.wT, hi-lo, OC, C, 1, j.inp[lo*C:], C, j.w, ldw, 1, out, OC)
	case mmFwdCols:
		n := hi - lo
		for r := 0; r < N; r++ {
			o := j.out[r*OC+lo : r*OC+hi]
			if j.bias != nil {
				copy(o, j.bias[lo:hi])
			} else {
				clear(o)
			}
		}
		wb := j.w[lo:] // columns lo.. of (C,OC)
		if j.wT {
			wb = j.w[lo*C:] // rows lo.. of (OC,C)
		}
		if N == 1 {
			if j.wT {
				sgemv(false, n, C, 1, wb, C, j.inp[:C], 1, j.out[lo:hi])
			} else {
				sgemv(true, C, n, 1, wb, OC, j.inp[:C], 1, j.out[lo:hi])
			}
			return
		}
		sgemm(false, j.wT, N, n, C, 1, j.inp, C, wb, ldw, 1, j.out[lo:], OC)
	case mmBackInp:
		// dinp (n,C) += dout (n,OC) · op(W)ᵀ
		sgemm(false, !j.wT, hi-lo, C, OC, 1, j.dout[lo*OC:], OC, j.w, ldw, 1, j.out[lo*C:], C)
	case mmBackW:
		if j.wT {
			// dW (OC,C) += doutᵀ (OC,N) · inp (N,C), rows lo..hi of OC
			sgemm(true, false, hi-lo, C, N, 1, j.dout[lo:], OC, j.inp, C, 1, j.dw[lo*C:], C)
		} else {
			// dW (C,OC) += inpᵀ (C,N) · dout (N,OC), rows lo..hi of C
			sgemm(true, false, hi-lo, OC, N, 1, j.inp[lo:], C, j.dout, OC, 1, j.dw[lo*OC:], OC)
		}
	case mmBackBias:
		db := j.bias[lo:hi]
		for r := 0; r < N; r++ {
			d := j.dout[r*OC+lo : r*OC+hi]
			for i := range db {
				db[i] += d[i]
			}
		}
	}
}

func fillBias(out, bias []float32, OC int) {
	if bias == nil {
		clear(out)
		return
	}
	for r := 0; r+OC <= len(out); r += OC {
		copy(out[r:r+OC], bias[:OC])
	}
}

func hostOrNil(b nn.Buffer) []float32 {
	if b.Len() == 0 {
		return nil
	}
	return b.Host()
}

// MatmulForward splits over rows when there are enough of them (training),
// else over output columns (a sampling step has one row).
func (b *Backend) MatmulForward(out, inp, w, bias nn.Buffer, N, C, OC int, wT bool) {
	b.jMM = mmJob{out: out.Host(), inp: inp.Host(), w: w.Host(), bias: hostOrNil(bias), N: N, C: C, OC: OC, wT: wT}
	if N >= 8*b.pool.n {
		b.jMM.mode = mmFwdRows
		b.pool.run(N, 8, &b.jMM)
		return
	}
	b.jMM.mode = mmFwdCols
	// A part needs about 1M multiply-adds to beat the hand-off between
	// threads (measured: a small-preset sampling step is as fast inline, and
	// much faster when the machine is loaded).
	b.pool.run(OC, max(64, (1<<20)/max(1, N*C)), &b.jMM)
}

func (b *Backend) MatmulBackward(dinp, dw, dbias, dout, inp, w nn.Buffer, N, C, OC int, wT bool) {
	b.jMM = mmJob{out: hostOrNil(dinp), inp: inp.Host(), w: w.Host(), dout: dout.Host(), dw: dw.Host(), bias: hostOrNil(dbias), N: N, C: C, OC: OC, wT: wT}
	if !dinp.IsNil() {
		b.jMM.mode = mmBackInp
		b.pool.run(N, 8, &b.jMM)
	}
	// dW: one part per worker. Each part is one sgemm over all N rows, and
	// every call packs the whole of the other operand (dout or inp, N×OC or
	// N×C), so finer parts would repeat that packing.
	b.jMM.mode = mmBackW
	rows := C
	if wT {
		rows = OC
	}
	b.pool.run(rows, (rows+b.pool.n-1)/b.pool.n, &b.jMM)
	if b.jMM.bias != nil {
		b.jMM.mode = mmBackBias
		b.pool.run(OC, 64, &b.jMM)
	}
}

// Sgemm exposes the raw single-threaded OpenBLAS product (row-major) for the
// engine benchmark's baseline.
func Sgemm(transA, transB bool, M, N, K int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(transA, transB, M, N, K, alpha, a, lda, bm, ldb, beta, c, ldc)
}
