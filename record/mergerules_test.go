package record

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
)

// ruleFields walks the fields of t under prefix as cellMergeRules names
// them, into the parts fields (struct, pointer to one, slice of them), and
// calls f with each field's name and rule.
func ruleFields(t reflect.Type, prefix string, f func(name string, rule mergeRule)) {
	for i := range t.NumField() {
		field := t.Field(i)
		name := prefix + field.Name
		rule := cellMergeRules[name]
		f(name, rule)
		if rule != parts {
			continue
		}
		inner := field.Type
		for inner.Kind() == reflect.Pointer || inner.Kind() == reflect.Slice {
			inner = inner.Elem()
		}
		ruleFields(inner, name+".", f)
	}
}

// Every field of Cell, and of the parts merged field by field, says how
// it merges; the table names no field Cell does not have.
func TestEveryCellFieldHasAMergeRule(t *testing.T) {
	seen := map[string]bool{}
	ruleFields(reflect.TypeFor[Cell](), "", func(name string, rule mergeRule) {
		seen[name] = true
		if rule == 0 {
			t.Errorf("Cell field %s has no rule in cellMergeRules: say how Merge combines it (or that it keeps the first's, and why)", name)
		}
	})
	for _, name := range slices.Sorted(maps.Keys(cellMergeRules)) {
		if !seen[name] {
			t.Errorf("cellMergeRules has a rule for %s, which is no field of Cell", name)
		}
	}
}

// distinct sets every field of v that a rule of mergeFields merges to a
// value of its own, from next (counting up): numbers next, flag for
// either, one element for appended and one name for summed maps.
func distinct(v reflect.Value, prefix string, next *int64, flag bool) {
	for i := range v.NumField() {
		name := prefix + v.Type().Field(i).Name
		f := v.Field(i)
		*next++
		switch cellMergeRules[name] {
		case summed, largest, smallest, oracleSummed, oracleLargest:
			switch f.Kind() {
			case reflect.Int, reflect.Int64:
				f.SetInt(*next)
			case reflect.Float64:
				f.SetFloat(float64(*next) + 0.5)
			case reflect.Map:
				f.Set(reflect.ValueOf(map[string]int64{"a": *next, name: *next * 10}))
			}
		case either:
			f.SetBool(flag)
		case appended:
			one := reflect.MakeSlice(f.Type(), 1, 1)
			*next++
			if one.Index(0).Kind() == reflect.Int64 {
				one.Index(0).SetInt(*next)
			} else {
				one.Index(0).FieldByName("AtS").SetFloat(float64(*next))
			}
			f.Set(one)
		case parts:
			if f.Kind() == reflect.Struct {
				distinct(f, name+".", next, flag)
			}
		}
	}
}

// expected checks every field of got that a rule of mergeFields merges
// against the rule applied to a and b.
func expected(t *testing.T, got, a, b reflect.Value, prefix string, w witnessing) {
	t.Helper()
	num := func(v reflect.Value) float64 {
		if v.Kind() == reflect.Float64 {
			return v.Float()
		}
		return float64(v.Int())
	}
	for i := range got.NumField() {
		name := prefix + got.Type().Field(i).Name
		g, x, y := got.Field(i), a.Field(i), b.Field(i)
		var want any
		switch rule := cellMergeRules[name]; {
		case rule == parts && g.Kind() == reflect.Struct:
			expected(t, g, x, y, name+".", w)
			continue
		case (rule == oracleSummed || rule == oracleLargest) && w == witnessedA:
			want = num(x)
		case (rule == oracleSummed || rule == oracleLargest) && w == witnessedB:
			want = num(y)
		case (rule == summed || rule == oracleSummed) && g.Kind() == reflect.Map:
			sum := map[string]int64{}
			for _, m := range []reflect.Value{x, y} {
				for it := m.MapRange(); it.Next(); {
					sum[it.Key().String()] += it.Value().Int()
				}
			}
			if !reflect.DeepEqual(g.Interface(), sum) {
				t.Errorf("%s: merged %v, want the sum %v", name, g.Interface(), sum)
			}
			continue
		case rule == summed || rule == oracleSummed:
			want = num(x) + num(y)
		case rule == largest || rule == oracleLargest:
			want = max(num(x), num(y))
		case rule == smallest:
			want = min(num(x), num(y))
		case rule == either:
			if g.Bool() != (x.Bool() || y.Bool()) {
				t.Errorf("%s: merged %v, want %v or %v", name, g.Bool(), x.Bool(), y.Bool())
			}
			continue
		case rule == appended:
			joined := reflect.AppendSlice(reflect.AppendSlice(reflect.MakeSlice(x.Type(), 0, 2), x), y)
			if !reflect.DeepEqual(g.Interface(), joined.Interface()) {
				t.Errorf("%s: merged %v, want %v then %v", name, g.Interface(), x.Interface(), y.Interface())
			}
			continue
		default:
			continue
		}
		if num(g) != want {
			t.Errorf("%s (%s): merged %v, want %v from %v and %v", name, ruleName[cellMergeRules[name]], num(g), want, num(x), num(y))
		}
	}
}

var ruleName = map[mergeRule]string{summed: "summed", largest: "largest", smallest: "smallest", oracleSummed: "oracle, summed",
	oracleLargest: "oracle, largest"}

// mergeable is a cell whose every field a rule merges has a value of its
// own (counting up from start; flags flag), with histograms and a second
// that merge.
func mergeable(t *testing.T, start int64, flag bool, witness *WitnessInfo) Cell {
	t.Helper()
	c := Cell{Variant: "lua-release", Server: &ServerCost{}, Series: []measure.Second{{}}, Witness: witness}
	next := start
	distinct(reflect.ValueOf(&c).Elem(), "", &next, flag)
	distinct(reflect.ValueOf(c.Server).Elem(), "Server.", &next, flag)
	distinct(reflect.ValueOf(&c.Series[0]).Elem(), "Series.", &next, flag)
	if witness != nil {
		done := witness.Done // which cell read the witness last
		distinct(reflect.ValueOf(c.Witness).Elem(), "Witness.", &next, flag)
		c.Witness.Done = done
	}
	// One count each of many clients: too few to recompute the fairness.
	empty, err := metrics.EncodeHistogram(metrics.NewHistogram())
	if err != nil {
		t.Fatal(err)
	}
	c.Histograms = Histograms{Acquire: empty, AcquireRaw: empty, Release: empty, Hold: empty, Handoff: empty}
	return c
}

// mergeCell merges every field as its rule says: a cell's own, the server
// cost's, a second's and the witness information's, without a witness and
// with one read last by either cell.
func TestMergeCellFollowsTheRules(t *testing.T) {
	for _, tc := range []struct {
		name           string
		doneA, doneB   int
		w              witnessing
		witnessedCells bool
	}{
		{"unwitnessed", 0, 0, unwitnessed, false},
		{"witness read last by the first", 3, 2, witnessedA, true},
		{"witness read last by the second", 2, 3, witnessedB, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wa, wb *WitnessInfo
			if tc.witnessedCells {
				wa, wb = &WitnessInfo{Done: tc.doneA}, &WitnessInfo{Done: tc.doneB}
			}
			a, b := mergeable(t, 0, false, wa), mergeable(t, 1000, true, wb)
			// The second's counts go the other way, so that largest and
			// smallest cannot pass by always taking one side.
			b.ElapsedS, b.Violations.MaxOccupancy, b.Fairness.Jain = 0.25, 1, 0.125
			before := a
			before.Server, before.Series = new(*a.Server), slices.Clone(a.Series)
			if a.Witness != nil {
				before.Witness = new(*a.Witness)
			}
			merged := a
			merged.Series = slices.Clone(a.Series)
			if err := mergeCell(&merged, &b); err != nil {
				t.Fatal(err)
			}
			expected(t, reflect.ValueOf(merged), reflect.ValueOf(before), reflect.ValueOf(b), "", tc.w)
			expected(t, reflect.ValueOf(*merged.Server), reflect.ValueOf(*before.Server), reflect.ValueOf(*b.Server), "Server.", tc.w)
			expected(t, reflect.ValueOf(merged.Series[0]), reflect.ValueOf(before.Series[0]), reflect.ValueOf(b.Series[0]), "Series.", tc.w)
			if tc.witnessedCells {
				expected(t, reflect.ValueOf(*merged.Witness), reflect.ValueOf(*before.Witness), reflect.ValueOf(*b.Witness), "Witness.", tc.w)
			}
			if want := float64(merged.Commands) / float64(merged.Acquisitions); merged.CommandsPerAcquisition != want {
				t.Errorf("commands per acquisition %v, want %v", merged.CommandsPerAcquisition, want)
			}
			if want := merged.Server.CPUSeconds * 1e6 / float64(merged.Acquisitions); merged.Server.CPUMicrosPerAcquisition != want {
				t.Errorf("server CPU per acquisition %v, want %v", merged.Server.CPUMicrosPerAcquisition, want)
			}
			if !reflect.DeepEqual(a, before) {
				t.Errorf("mergeCell changed what its input shares: server %+v, series %+v", a.Server, a.Series)
			}
		})
	}
}
