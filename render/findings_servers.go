package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lockbench/lockbench/record"
)

// This file is the findings report of scenarios run on several servers
// (lockbench findings --servers redis,valkey): each cell named with its
// server, the agreement table per server, and the checks whose outcome
// differs between the servers.

// cellLabel names cells in a findings table: the variant, and its server
// when the cells ran on several.
func cellLabel(cells []record.Cell) func(c *record.Cell) string {
	if len(productsOf(cells)) < 2 {
		return func(c *record.Cell) string { return c.Variant }
	}
	return func(c *record.Cell) string { return c.Variant + " on " + c.Product }
}

// productsOf are the servers cells ran on, in the order first seen.
func productsOf(cells []record.Cell) []string {
	var products []string
	for _, c := range cells {
		if !slices.Contains(products, c.Product) {
			products = append(products, c.Product)
		}
	}
	return products
}

// findingsServer is one server of a scenario's cells: several is set when
// the cells ran on more than one, and each gets a row of its own.
type findingsServer struct {
	product string
	several bool
}

// suffix names the server after a scenario's name, when there are several.
func (s findingsServer) suffix() string {
	if !s.several {
		return ""
	}
	return " on " + s.product
}

// serversOf are the servers of cells, each to count apart when several;
// one that stands for them all otherwise.
func serversOf(cells []record.Cell) []findingsServer {
	products := productsOf(cells)
	if len(products) < 2 {
		return []findingsServer{{}}
	}
	servers := make([]findingsServer, len(products))
	for i, p := range products {
		servers[i] = findingsServer{product: p, several: true}
	}
	return servers
}

// writeAcrossServers writes, for findings run on several servers, which
// checks came out differently on them, each with the figures of both; or
// that none did. Nothing for findings on one server.
func writeAcrossServers(w io.Writer, findings []Finding) error {
	var servers []string
	var differ []string
	for _, f := range findings {
		cells := f.cells()
		servers = append(servers, productsOf(cells)...)
		byVariant := map[string][]*record.Cell{}
		var order []string
		for i := range cells {
			c := &cells[i]
			if _, seen := byVariant[c.Variant]; !seen {
				order = append(order, c.Variant)
			}
			byVariant[c.Variant] = append(byVariant[c.Variant], c)
		}
		for _, v := range order {
			for _, cond := range f.Expect[v] {
				var outcomes []string
				held := map[bool]bool{}
				for _, c := range byVariant[v] {
					ok, err := record.Check(cond, c)
					if err != nil {
						continue
					}
					held[ok] = true
					outcomes = append(outcomes, fmt.Sprintf("%s on %s (%d overlaps, %d lost updates, %d acquisitions)",
						map[bool]string{true: "holds", false: "fails"}[ok], c.Product, c.Violations.Overlaps, c.Violations.LostUpdates, c.Acquisitions))
				}
				if len(held) > 1 {
					differ = append(differ, fmt.Sprintf("- %s, %s, %s: %s", f.Name, v, cond, strings.Join(outcomes, "; ")))
				}
			}
		}
	}
	slices.Sort(servers)
	servers = slices.Compact(servers)
	if len(servers) < 2 {
		return nil
	}
	text := fmt.Sprintf("## Across servers\n\nEvery scenario ran on %s, each variant a cell per server. ", strings.Join(servers, " and "))
	if len(differ) == 0 {
		text += "Every check came out the same on every server.\n\n"
	} else {
		text += fmt.Sprintf("%d checks came out differently:\n\n%s\n\n", len(differ), strings.Join(differ, "\n"))
	}
	_, err := io.WriteString(w, text)
	return err
}
