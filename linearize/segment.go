package linearize

import (
	"slices"
)

// segment is a stretch of one key's steps that is checked on its own.
type segment struct {
	key   *keySteps
	steps []step // an initial step first when leases are inside at its start
}

// split cuts one key's steps into segments at the moments where the set
// of leases inside is the same in every linearization, so that each
// segment can be checked alone from that set (porcupine's cost grows with
// the square of a partition's length). A moment x (between two event
// times) is such a cut when no step but a begin is under way
// across it, and either no begin is under way or the leases surely inside
// (begun before x, their end not invoked by x) already fill the limit: a
// begin under way could then not have taken effect before x without one
// lease too many, so it moves to the next segment, its call set to just
// after x. The next segment starts with an initial step that puts the
// leases surely inside back.
func split(ks *keySteps, limit int) []segment {
	steps := ks.steps
	type point struct {
		time  int64
		ret   bool // a return; calls sort first at equal times
		index int  // into steps
	}
	points := make([]point, 0, 2*len(steps))
	for i, s := range steps {
		points = append(points, point{s.call, false, i}, point{s.ret, true, i})
	}
	slices.SortFunc(points, func(a, b point) int {
		if c := compareInt64(a.time, b.time); c != 0 {
			return c
		}
		switch {
		case !a.ret && b.ret:
			return -1
		case a.ret && !b.ret:
			return 1
		}
		return a.index - b.index
	})

	var (
		segs        []segment
		cur         []int // indexes of the current segment's steps
		curInit     []int // leases inside at the current segment's start
		curInitTime int64
		blocking    int               // steps under way other than begins
		begins      = map[int]bool{}  // begins under way, by step index
		inside      = map[int]bool{}  // leases surely inside
		ended       = map[int]bool{}  // leases whose end was invoked
		clipped     = map[int]int64{} // step index → its call moved past a cut
	)
	flush := func() {
		if len(cur) == 0 {
			return
		}
		seg := segment{key: ks}
		if len(curInit) > 0 {
			seg.steps = append(seg.steps, step{kind: initial, lease: -1, process: -1,
				call: curInitTime, ret: curInitTime, holders: curInit})
		}
		for _, i := range cur {
			s := steps[i]
			if c, ok := clipped[i]; ok {
				s.call = c
			}
			seg.steps = append(seg.steps, s)
		}
		for i := range seg.steps {
			seg.steps[i].seg = len(segs)
		}
		segs = append(segs, seg)
	}
	for p := 0; p < len(points); {
		t := points[p].time
		for ; p < len(points) && points[p].time == t; p++ {
			pt := points[p]
			s := steps[pt.index]
			if !pt.ret {
				cur = append(cur, pt.index)
				switch s.kind {
				case begin:
					begins[pt.index] = true
				case end:
					ended[s.lease] = true
					delete(inside, s.lease)
					blocking++
				default:
					blocking++
				}
				continue
			}
			switch s.kind {
			case begin:
				delete(begins, pt.index)
				if !ended[s.lease] {
					inside[s.lease] = true
				}
			default:
				blocking--
			}
		}
		if p == len(points) || blocking > 0 || (len(begins) > 0 && len(inside) < limit) {
			continue
		}
		// A cut between t and the next event time.
		var carried []int
		for i := range begins {
			carried = append(carried, i)
		}
		slices.Sort(carried)
		moved := make(map[int]bool, len(carried))
		for _, i := range carried {
			moved[i] = true
			clipped[i] = t + 1
		}
		kept := cur[:0:0]
		for _, i := range cur {
			if !moved[i] {
				kept = append(kept, i)
			}
		}
		cur = kept
		flush()
		cur = carried
		curInit = curInit[:0:0]
		for l := range inside {
			curInit = append(curInit, l)
		}
		slices.Sort(curInit)
		curInitTime = t
	}
	flush()
	return segs
}
