package results

import (
	"slices"
)

// Group is one cell of a plan with every repetition of it, in the order
// they ran.
type Group struct {
	Cells []*Cell
}

// First is the group's first repetition, which names the cell.
func (g Group) First() *Cell { return g.Cells[0] }

// Values returns fig's value in every repetition that ran without error.
func (g Group) Values(fig Figure) []float64 {
	var vs []float64
	for _, c := range g.Cells {
		if c.Error == "" {
			vs = append(vs, fig.Value(c))
		}
	}
	return vs
}

// sameCell identifies a cell of the plan apart from its repetition.
func sameCell(c *Cell) cellKey {
	k := keyOf(c)
	k.repetition = 0
	return k
}

// Groups gathers the repetitions of each cell of rec, in the order the
// cells first ran.
func Groups(rec *Record) []Group {
	var groups []Group
	index := map[cellKey]int{}
	for i := range rec.Cells {
		c := &rec.Cells[i]
		k := sameCell(c)
		j, seen := index[k]
		if !seen {
			j = len(groups)
			index[k] = j
			groups = append(groups, Group{})
		}
		groups[j].Cells = append(groups[j].Cells, c)
	}
	return groups
}

// Repeated reports whether some cell of rec ran more than once.
func Repeated(rec *Record) bool {
	return slices.ContainsFunc(rec.Cells, func(c Cell) bool { return c.Repetition > 1 })
}

// Median returns the median of vs (the mean of the middle two for an even
// count), 0 for none.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// Spread is the range of vs relative to their median: (max-min)/median,
// 0 when the median is 0.
func Spread(vs []float64) float64 {
	m := Median(vs)
	if m == 0 {
		return 0
	}
	return (slices.Max(vs) - slices.Min(vs)) / m
}
