package decoding

import "github.com/amtstudio/amt/engine/token"

// Options are what one piece is decoded for.
type Options struct {
	// Request is the piece as asked: its genre, meter, programs and bars
	// choose the plan and the levers' rules (programs already mapped onto
	// trained ones, NearestPrograms; Bars > 0).
	Request token.Attributes
	// Prefix is the attribute prefix forced, in the model's key frame
	// (app's keyframe.go): the same as Request but for the key.
	Prefix token.Attributes
	// Shift is how many semitones the frame lies from the request: the
	// register is asked in the request's pitches.
	Shift int
	// Levers are the levers in force (Levers.Resolve).
	Levers Levers
	// Seed is the piece's seed: it draws the upbeat, the strains' opening
	// and the parts' entries (draws.go).
	Seed uint64
	// Form names the form ("" or "auto": by genre and length; Forms).
	Form string
	// KeyBias and RhythmBias are the weights of KeyBias and RhythmBias (0:
	// off).
	KeyBias, RhythmBias float32
	// Register is the pitch range the pitched parts are pulled into
	// (RegisterBias); 0 0: none.
	Register [2]int
	// PartShare is the share of bars the words ask of a requested program
	// when they ask less than a part (LeverParts holds the others to
	// DefaultParts.Share; 0: left to the model). Nothing sets it yet: the
	// words that would ("a little piano", "the strings enter at bar 9")
	// are not read (docs/MODEL.md, "Parts").
	PartShare map[int]float64
}

// Piece is the decoding of one piece: the constraint the sampler follows
// and the hooks that steer its logits, as gpt.SampleOptions takes them
// (Constraint: Form, Force: Form.Force, Adjust: Bars.Adjust, Mask, Plain).
type Piece struct {
	// Bars keeps the grammar, the exact bar count, the requested programs
	// and the upbeat.
	Bars *Bars
	// Form restates the plan's sections over Bars; it is the constraint.
	Form *Restater
	// Plan is the form the piece follows.
	Plan Plan
	// Mask is every logit hook in force (key, rhythm, register, line,
	// density, parts), in that order.
	Mask func([]float32)
	// Plain, when not nil, says when a token is drawn from the model's own
	// distribution (LeverLengths, LeverTexture, LeverDynamics).
	Plain func() bool
}

// NewPiece sets up the decoding of one piece: the grammar forced to the
// prefix (capped chords under LeverCanonical), exactly Request.Bars bars in
// the common meters, the requested programs (or at most
// DefaultMaxInstruments), the form (the strains of dance tunes under
// LeverStrains, with their opening), the upbeat (LeverPickup), the parts'
// entries (LeverBuild), restatements varied (LeverVary) and the logit hooks.
func NewPiece(v *token.Vocab, o Options) (*Piece, error) {
	a, levers := o.Request, o.Levers
	g := v.NewGrammar()
	g.Force(o.Prefix)
	if levers&LeverCanonical != 0 {
		g.Canonical(ChordCap)
	}
	c := NewBars(v, g, a.Bars)
	if a.Programs != nil {
		c.Require(a.Programs, false) // drums come from INSTRUMENT_DRUMS, not a forced hit
	} else {
		c.MaxInstruments = DefaultMaxInstruments
	}
	c.CommonMetersOnly()
	formName := o.Form
	if (formName == "" || formName == "auto") && levers&LeverStrains != 0 && a.Bars >= 8 {
		if f := StrainForm(a.Genre); f != "" {
			formName = f
		}
	}
	plan, err := PlanForm(formName, a.Genre, a.Bars)
	if err != nil {
		return nil, err
	}
	if levers&LeverStrains != 0 {
		plan = plan.WithOpening(StrainOpening(OpeningDraw(o.Seed)))
	}
	if levers&LeverPickup != 0 && a.Bars >= MinPickupBars {
		if c.Pickup = Pickup(v, a.Genre, a.MeterNum, a.MeterDen, UpbeatDraw(o.Seed)); c.Pickup > 0 {
			plan = plan.AfterPickup()
		}
	}
	if levers&LeverBuild != 0 && a.Programs != nil {
		drums := a.Drums != nil && *a.Drums
		c.Entry = Entries(a.Genre, a.Programs, drums, plan.Bars, func(i int) float64 { return entryDraw(o.Seed, i) })
	}
	form := NewRestater(v, c, plan)
	if levers&LeverVary != 0 && !RepeatsExactly(a.Genre) {
		form.Vary = VarySemitones
	}
	p := &Piece{Bars: c, Form: form, Plan: plan}
	if levers&(LeverLengths|LeverTexture|LeverDynamics) != 0 {
		p.Plain = func() bool {
			if k, ok := g.Only(); ok {
				return k == token.KindDuration && levers&LeverLengths != 0 || k == token.KindVelocity && levers&LeverDynamics != 0
			}
			return g.AfterNote() && levers&LeverTexture != 0
		}
	}
	var reg, line, dens, parts, lead func([]float32)
	if o.Register[1] > 0 {
		reg = RegisterBias(v, c, o.Register[0], o.Register[1], RegisterWeight, o.Shift)
	}
	if levers&LeverLine != 0 {
		line = LineBias(v, c, DefaultLine)
	}
	// A density the request asks for ("sparse", "dense", or implied by its
	// words) is held; one the model samples is left to it.
	if o.Prefix.Density >= 0 {
		dens = DensityHold(v, c, DensityHoldWeight)
	}
	if levers&LeverParts != 0 {
		parts = PartHold(v, c, a.Programs, DefaultParts, o.PartShare)
	}
	if levers&LeverLead != 0 {
		lead = LeadBias(v, c, Lead(a.Programs), LeadWeight)
	}
	p.Mask = Hooks(KeyBias(v, c, o.Prefix.KeyTonic, o.Prefix.KeyMinor, o.KeyBias), RhythmBias(v, c, o.RhythmBias), reg, line, dens, parts, lead)
	return p, nil
}
