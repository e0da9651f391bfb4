package render_test

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/render"
)

// A record of cells on two servers (--servers) shows a server column in
// the compact table, kept however narrow the terminal, and the wide one;
// a record on one server does not.
func TestServerColumn(t *testing.T) {
	rec := goldenRecord(t)
	if h := headerOf(renderTable(t, rec, render.TableOptions{})); strings.Contains(strings.Join(h, "|"), "server") {
		t.Errorf("one server: header %q; want no server column", h)
	}
	second := rec.Cells[0]
	second.Product = "valkey 8.0.1"
	rec.Cells = append(rec.Cells, second)
	rec.Topology.ServerVersion = rec.Cells[0].Product + ", valkey 8.0.1"
	for _, width := range []int{render.DefaultWidth, 20} {
		out := renderTable(t, rec, render.TableOptions{Width: width})
		if h := headerOf(out); len(h) < 2 || h[1] != "server" {
			t.Errorf("width %d: header %q; want the server second", width, h)
		}
		if !strings.Contains(out, "valkey 8.0.1") {
			t.Errorf("width %d: the table does not name valkey 8.0.1:\n%s", width, out)
		}
	}
	if lines := render.Conclusions(rec); !strings.Contains(strings.Join(lines, "\n"), ", on ") && !strings.Contains(strings.Join(lines, "\n"), "(on ") {
		t.Errorf("conclusions %q do not name the server of the fastest", lines)
	}
	if out := renderTable(t, rec, render.TableOptions{Wide: true}); !strings.Contains(out, "valkey 8.0.1") || !strings.Contains(out, "SERVER") && !strings.Contains(out, "server") {
		t.Errorf("wide table without the server column:\n%s", out)
	}
}
