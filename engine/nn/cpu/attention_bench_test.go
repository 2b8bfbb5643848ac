package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkAttentionBlocks: forward + backward of one small-preset layer's
// attention (B 8, T 256, C 256, 4 heads) on one worker, per causal row-block
// size; block = T is the full (unskipped) product, the old kernel's work.
func BenchmarkAttentionBlocks(b *testing.B) {
	be := NewWorkers(1)
	defer be.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	B, T, C, NH := 8, 256, 256, 4
	qkv, dout := randBuf(be, rng, B*T*3*C, 1), randBuf(be, rng, B*T*C, 1)
	out, att, dqkv := be.Alloc(B*T*C), be.Alloc(B*NH*T*T), be.Alloc(B*T*3*C)
	defer func(old int) { attBlock = old }(attBlock)
	for _, blk := range []int{32, 64, 128, 256} {
		b.Run(fmt.Sprintf("block%d", blk), func(b *testing.B) {
			attBlock = blk
			for range b.N {
				be.AttentionForward(out, att, qkv, B, T, C, NH)
				be.AttentionBackward(dqkv, dout, qkv, att, B, T, C, NH)
			}
		})
	}
}
