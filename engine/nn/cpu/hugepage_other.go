//go:build !linux

package cpu

func adviseHuge([]float32) {}
