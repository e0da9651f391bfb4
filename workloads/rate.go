package workloads

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrBadRate is matched (with errors.Is) by every error of ParseRate and
// ParseStages.
var ErrBadRate = errors.New("workloads: bad rate")

// ParseRate parses an open loop's rate: arrivals per second, optionally
// with their spacing: 5000, constant:5000 or poisson:5000.
func ParseRate(s string) (rate float64, arrivals string, err error) {
	arrivals, num, ok := strings.Cut(s, ":")
	if !ok {
		arrivals, num = "constant", s
	}
	rate, perr := strconv.ParseFloat(num, 64)
	if (arrivals != "constant" && arrivals != "poisson") || perr != nil || !(rate > 0) || rate > 1e7 {
		return 0, "", &inputError{fmt.Sprintf("%q is not a rate (a positive number of acquisitions per second: 5000, constant:5000, poisson:5000)", s), ErrBadRate}
	}
	return rate, arrivals, nil
}

// ParseStages parses ramps of an open loop's rate: DURATION:RATE,... such
// as 10s:1000,20s:5000,10s:0.
func ParseStages(s string) ([]Stage, error) {
	var stages []Stage
	for part := range strings.SplitSeq(s, ",") {
		d, r, ok := strings.Cut(strings.TrimSpace(part), ":")
		dur, derr := time.ParseDuration(d)
		rate, rerr := strconv.ParseFloat(r, 64)
		if !ok || derr != nil || rerr != nil || dur <= 0 || !(rate >= 0) || rate > 1e7 {
			return nil, &inputError{fmt.Sprintf("%q is not a stage (DURATION:RATE, e.g. 10s:1000,20s:5000,10s:0)", part), ErrBadRate}
		}
		stages = append(stages, Stage{Duration: dur, Rate: rate})
	}
	return stages, nil
}

// StagesDuration is the total length of stages.
func StagesDuration(stages []Stage) time.Duration {
	var d time.Duration
	for _, s := range stages {
		d += s.Duration
	}
	return d
}

// rateAt is the open loop's rate t into the measured phase: Rate without
// stages; with them, a linear ramp from each stage's starting rate (the
// rate before it, Rate for the first) to its own.
func (s Spec) rateAt(t time.Duration) float64 {
	from := s.Rate
	for _, st := range s.Stages {
		if t < st.Duration {
			return from + (st.Rate-from)*float64(t)/float64(st.Duration)
		}
		t -= st.Duration
		from = st.Rate
	}
	return from
}

// peakRate is the highest rate the schedule reaches.
func (s Spec) peakRate() float64 {
	peak := s.Rate
	for _, st := range s.Stages {
		peak = max(peak, st.Rate)
	}
	return peak
}
