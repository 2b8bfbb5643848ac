//go:build tools

// This file keeps the project's chosen dependencies in go.mod while the
// packages that use them are being written. It is never built.
package main

import (
	_ "fyne.io/fyne/v2/app"
	_ "fyne.io/fyne/v2/test"
	_ "github.com/NVIDIA/go-nvml/pkg/nvml"
	_ "github.com/go-audio/wav"
	_ "github.com/hajimehoshi/oto/v2"
	_ "github.com/shirou/gopsutil/v3/cpu"
	_ "github.com/shirou/gopsutil/v3/mem"
	_ "gitlab.com/gomidi/midi/v2/smf"
	_ "go.etcd.io/bbolt"
)
