package variants

import "strings"

// WhereText is where the variant runs, as text: the shapes it supports and,
// when it runs on some client libraries only, which ("single,cluster;
// rueidis only").
func (i Info) WhereText() string {
	return i.clientsOnly(strings.Join(i.shapeNames(), ","))
}

// UnusualRunsOn is where the variant runs when that is not what most
// variants run on (single and cluster topologies, with any client
// library); "" when it is.
func (i Info) UnusualRunsOn() string {
	var on string
	switch strings.Join(i.shapeNames(), ",") {
	case "single,cluster":
	case "single,cluster,independent":
		on = "also on independent masters"
	default:
		on = "runs on " + strings.Join(i.shapeNames(), ",")
	}
	return strings.TrimPrefix(i.clientsOnly(on), "; ")
}

// Facts are every fact of the variant, each with its label: kind, claims,
// default retry, where it runs, source, how it works, then its own lease
// time and its fault steps where it has them.
func (i Info) Facts() [][2]string {
	facts := [][2]string{{"kind", string(i.Kind)}, {"claims", i.Claims.String()}, {"default retry", i.RetryText()},
		{"runs on", i.WhereText()}, {"source", i.Source}, {"how it works", i.Summary}}
	if i.OwnTTL {
		facts = append(facts, [2]string{"lease time", "its own when the run sets no --ttl"})
	}
	for _, s := range i.Steps {
		facts = append(facts, [2]string{"fault step", s.Name + ": " + s.When})
	}
	return facts
}

// RetryText is the variant's retry when a run sets none.
func (i Info) RetryText() string {
	if i.DefaultRetry == "" {
		return "the library's"
	}
	return i.DefaultRetry
}

// shapeNames are the shapes the variant runs on, in the order single,
// cluster, independent.
func (i Info) shapeNames() []string {
	var on []string
	for _, s := range []Shape{ShapeSingle, ShapeCluster, ShapeIndependent} {
		if i.Supports(s) {
			on = append(on, string(s))
		}
	}
	return on
}

// clientsOnly is where followed, when the variant runs on some client
// libraries only, by which.
func (i Info) clientsOnly(where string) string {
	if len(i.Clients) > 0 {
		where += "; " + strings.Join(i.Clients, ",") + " only"
	}
	return where
}
