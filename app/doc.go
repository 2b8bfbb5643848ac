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
// # Where a feature lives
//
// A file's name starts with its use case, the screen or command it serves:
//
//   - compose_*: from a prompt to a piece (Compose, `amt generate`): the
//     one door from words to a request (compose_understand.go), the prompt
//     path and its candidates (compose_prompt.go, compose_lanes.go,
//     compose_critic.go), the key frame, continuing and regenerating a
//     user's music (compose_continue.go), variations, the edit history,
//     the models and the embedded default (compose.go,
//     compose_default_model.go). How each piece is decoded (its plan, the
//     levers) is engine/decoding's; compose_levers.go names it here.
//   - listen_*: hearing a piece: rendering (SoundFont or built-in), playing,
//     the track mix and stems.
//   - datasets_*: importing a folder (the staged pipeline into the store),
//     tokenizing a file, exporting ready training examples.
//   - train_*: a training run (the job of `amt train` and the Training
//     screen) and its result; a fine-tune from a trained model with its
//     lineage (train_finetune.go) and the report after it
//     (train_report.go).
//   - eval_*: judging music: metrics and adherence of files (eval.go), the
//     prompt suites (eval_model.go, eval_freetext.go), the two-sample test,
//     copying from training pieces (eval_copies.go), the real corpora's
//     references, piano rolls, two runs compared, WAV levels.
//   - bench_*: the measurements of `amt bench` and profiling.
//
// Shared by all: the Studio (studio.go: the store, projects, settings), the
// three doors below, the limits of every number (limits.go), the compute
// device (device.go) and the names the front ends use (frontend*.go).
//
// One package, not one per use case: the use cases share the Studio, whose
// methods (Compose, Ingest, StartTraining, …) must live in its package, and
// they call one another (evaluation and benchmarks generate, train and
// ingest; Compose evaluates what it made), so packages per use case would
// either form cycles or push
// the Studio's internals into exported names. Both front ends import this
// one package and nothing else below it (TestUIImportsOnlyApp,
// TestCLIImportsOnlyApp), which a split into five would weaken. The file
// prefixes give the map a package would give, at no cost.
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
