package gpt

import (
	"errors"
	"fmt"
	"math"
)

// ErrNonFinite marks a NaN or infinite number where a finite one is
// needed: a sampling option, a logit, a weight. Sampling stops at the
// first such logit instead of reporting "no token allowed".
var ErrNonFinite = errors.New("not a finite number")

// ErrBadOption marks a SampleOptions value outside its range.
var ErrBadOption = errors.New("gpt: bad sampling option")

// MaxTemperature bounds SampleOptions.Temperature: beyond it sampling is
// indistinguishable from uniform noise.
const MaxTemperature = 100

// Validate checks the options Generate is given: MaxTokens > 0,
// Temperature finite in [0, MaxTemperature], TopK ≥ 0, TopP finite in
// [0, 1]. Errors name the field, the value and the range.
func (o SampleOptions) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case o.MaxTokens <= 0:
		return fmt.Errorf("%w: MaxTokens %d must be > 0", ErrBadOption, o.MaxTokens)
	case !finite(o.Temperature):
		return fmt.Errorf("%w: temperature %v: %w (allowed 0 to %d)", ErrBadOption, o.Temperature, ErrNonFinite, MaxTemperature)
	case o.Temperature < 0 || o.Temperature > MaxTemperature:
		return fmt.Errorf("%w: temperature %v outside 0 to %d", ErrBadOption, o.Temperature, MaxTemperature)
	case o.TopK < 0:
		return fmt.Errorf("%w: top-k %d is negative (0: no limit)", ErrBadOption, o.TopK)
	case !finite(o.TopP):
		return fmt.Errorf("%w: top-p %v: %w (allowed 0 to 1)", ErrBadOption, o.TopP, ErrNonFinite)
	case o.TopP < 0 || o.TopP > 1:
		return fmt.Errorf("%w: top-p %v outside 0 to 1", ErrBadOption, o.TopP)
	}
	return nil
}
