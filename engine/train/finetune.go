package train

// Fine-tuning: a run that starts from a trained model's weights (the
// default model, or a model folder) and learns a user's dataset of a few
// hundred pieces. The loop is Run's; what differs is the options:
//
//   - a fifth of the pieces held out by a fixed seed, validated before the
//     first step (the base's loss, the chart's first point) and every
//     tenth of the run;
//   - the model files are the best validated weights (KeepBest), so an
//     over-long run keeps the weights from before it began to memorise;
//   - the run stops when the held-out loss has not fallen for Patience
//     validations;
//   - a low learning rate with a short warm-up, and a number of steps from
//     the size of the training split (FineTuneSteps), bounded so a dataset
//     of 300 pieces finishes within 20 minutes on a 2-core CPU.
//
// Every default below was chosen by measurement on three datasets the
// default model never saw (docs/MODEL.md, "Fine-tuning").

// Fine-tune defaults.
const (
	FineTuneLR        = 3e-4 // peak learning rate (cosine to a tenth)
	FineTuneWarmup    = 10   // warm-up steps
	FineTuneValFrac   = 0.2  // share of pieces held out
	FineTuneSplitSeed = 1    // the split's seed: a resumed or reported run sees the same held-out pieces
	// FineTunePatience: validations without a lower held-out loss before
	// the run stops.
	FineTunePatience = 3
	// FineTuneValidations: validations in a run besides the base's (every
	// Steps/FineTuneValidations steps).
	FineTuneValidations = 10
	FineTuneValBatches  = 8 // batches of a validation
	FineTuneBatch       = 4 // sequences a step
	// FineTuneEpochs is how many times the steps would read the training
	// split's tokens, between FineTuneMinSteps and FineTuneMaxSteps.
	FineTuneEpochs   = 1.0
	FineTuneMinSteps = 40
	FineTuneMaxSteps = 400
)

// FineTuneSteps is the number of steps of a fine-tune whose training split
// holds trainTokens tokens, at batch × context tokens a step.
func FineTuneSteps(trainTokens, batch, context int) int {
	per := max(batch*context, 1)
	steps := int(FineTuneEpochs * float64(trainTokens) / float64(per))
	return min(max(steps, FineTuneMinSteps), FineTuneMaxSteps)
}

// FineTuneOptions are the options of a fine-tune of steps steps (batch,
// context, the output folder and the examples are the caller's): the
// defaults above, validation and checkpoints every tenth of the run.
func FineTuneOptions(steps int) Options {
	every := max(1, steps/FineTuneValidations)
	return Options{Steps: steps, Batch: FineTuneBatch, Accum: 1, LR: FineTuneLR, MinLR: FineTuneLR / 10,
		Warmup: min(FineTuneWarmup, max(steps/10, 1)), WeightDecay: 0.1, Clip: 1, ValFrac: FineTuneValFrac,
		ValEvery: every, ValBatches: FineTuneValBatches, Checkpoint: every, SplitSeed: FineTuneSplitSeed,
		ValidateFirst: true, KeepBest: true, Patience: FineTunePatience}
}
