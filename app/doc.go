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
//
// Both front ends reach the engine and the store only through app: the
// window imports app and the value types of engine/midi and engine/token
// (ui's TestUIImportsOnlyApp), and so does the command line
// (app/cli's TestCLIImportsOnlyApp; TestCLIFilesThroughApp also keeps it
// from opening files itself). What they name of the layers below is
// aliased in frontend.go and frontend_cli.go. Three doors are kept here
// once, so the window and the command line cannot act differently on the
// same input:
//
//   - input.go: how a user's files are read (streams and "-" for files
//     named directly, regular files only from folders, bounded,
//     stoppable);
//   - output.go: how a user's outputs are written (WriteOutput: atomic
//     files in their own folder, symlinks followed, streams written
//     through, folders and devices refused before any work);
//   - stop.go: how work stops (RunCommand: SIGINT/SIGTERM, 130/143,
//     StopGrace; FinishWithin for the window; the temporary files still in
//     flight removed).
package app
