// Package app holds the use cases of AMT Studio: the jobs (ingest, train,
// generate, continue, render, evaluate, bench measurements), the studio's
// store (projects, datasets, runs, pieces, settings) and the checks of
// every number a request carries. Two front ends call it: the window
// (package ui) and the command line (package app/cli).
//
// The use cases live apart from both front ends so that each action the
// window offers is the same app call the command line makes, tested once
// here; app/cli only parses flags and prints, ui only draws. app must
// never import Fyne (only ui/ touches widgets) nor app/cli, and parses no
// command-line flags (app/cli's TestLayers checks both).
package app
