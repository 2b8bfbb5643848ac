package app

import (
	"fmt"

	"github.com/amtstudio/amt/engine/decoding"
)

// The decoding levers (issue 24) and their defaults live in engine/decoding
// (levers.go there, each with what it measured); these are their names for
// the front ends and for the prompt path. Candidate selection (the critic,
// the number of candidates) stays here, with the candidates.
type Levers = decoding.Levers

const (
	LeverCanonical = decoding.LeverCanonical
	LeverVary      = decoding.LeverVary
	LeverLengths   = decoding.LeverLengths
	LeverTexture   = decoding.LeverTexture
	LeverDynamics  = decoding.LeverDynamics
	LeverStrains   = decoding.LeverStrains
	LeverCritic    = decoding.LeverCritic
	LeverLine      = decoding.LeverLine
	LeverPickup    = decoding.LeverPickup
	LeverBuild     = decoding.LeverBuild
	LeverParts     = decoding.LeverParts
	LeverLead      = decoding.LeverLead
	LeversSet      = decoding.LeversSet
	DefaultLevers  = decoding.DefaultLevers

	DefaultTemperature = decoding.DefaultTemperature
	DefaultTopP        = decoding.DefaultTopP
	DefaultKeyBias     = decoding.DefaultKeyBias
	DefaultRhythmBias  = decoding.DefaultRhythmBias
)

// LeverNames are the levers' names, in their order.
func LeverNames() []string { return decoding.LeverNames() }

// ParseLevers reads a lever list: "default", "none", or names joined by
// commas ("canonical,vary"); an unknown name is a usage error.
func ParseLevers(s string) (Levers, error) {
	l, err := decoding.ParseLevers(s)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return l, nil
}
