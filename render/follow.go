package render

import (
	"fmt"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/record"
)

// followNotes say, per cell with a failover, how soon its clients (of
// the cell's client library) followed each promotion: from the promotion
// seen to the first command the new master served for a client and to
// the first acquisition there (the served and acquired fault events), e.g.
// "failover follow, lua-release 16 clients (go-redis): replica-1 promoted
// at 4.21s; first command served there 0.35s later, first acquisition
// 0.36s later".
func followNotes(rec *record.Record) []string {
	var notes []string
	for _, c := range rec.Cells {
		var served, acquired *measure.FaultEvent
		for i := range c.Faults {
			e := &c.Faults[i]
			switch e.Action {
			case "served":
				served = e
			case "acquired":
				acquired = e
			}
			if served == nil || acquired == nil || served.Node != acquired.Node {
				continue
			}
			client := c.Client
			if client == "" {
				client = rec.Config.Client
			}
			notes = append(notes, fmt.Sprintf("failover follow, %s %d clients (%s): %s promoted at %.2fs; first command served there %s, first acquisition %s",
				c.Variant, c.Clients, client, served.Node, served.AtS-served.DurationS, followFigure(served), followFigure(acquired)))
			served, acquired = nil, nil
		}
	}
	return notes
}

// followFigure is how long after the promotion e happened: before it was
// seen when the clients followed within the watch's poll.
func followFigure(e *measure.FaultEvent) string {
	switch {
	case e.Error != "":
		return e.Error
	case e.DurationS < 0:
		return fmt.Sprintf("%.2fs before it was seen", -e.DurationS)
	}
	return fmt.Sprintf("%.2fs later", e.DurationS)
}
