package history

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// EDNOptions selects what [WriteEDN] writes.
type EDNOptions struct {
	// View is which operations are written. Default CriticalSections:
	// enter as :acquire and exit as :release, so that Knossos' mutex model
	// checks what lockbench's oracle checks. Leases writes acquire and
	// release as they are (extend is left out: Knossos' mutex knows only
	// those two). AllOps writes every op under its own name (a renewal as
	// :f :extend), with :lease and :fence, for readers other than the
	// mutex model.
	View View
	// Key, when set, writes only that key's operations with :value nil:
	// one mutex's history, as elle-cli's and Knossos' command lines read it
	// with --model mutex.
	// Default: every key, with :value [key nil], the form in which
	// jepsen.independent tuples print.
	Key string
}

// WriteEDN writes h in Jepsen's history format, one op map a line:
//
//	{:process 0, :type :invoke, :f :acquire, :value ["lockbench:k0" nil], :time 1200, :index 0}
//
// :type is :invoke, :ok, :fail or :info; :time is ns since the cell's
// start; :index counts the written events from 0.
//
// A Jepsen process runs one operation at a time and is never reused after
// an :info completion. A lockbench client may have two operations under way
// (its lease's renewal beside its critical section), so an operation that
// finds its client's Jepsen process busy, or crashed by an :info, runs on
// a fresh process numbered after every client; such ops carry :client with
// the lockbench client. In the CriticalSections view an exit is always
// written :ok (a holder that failed to write still left).
func WriteEDN(w io.Writer, h *History, opts EDNOptions) error {
	if opts.View >= numViews {
		return fmt.Errorf("history: WriteEDN: unknown view %d", opts.View)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	p := newProcesses(h)
	quoted := make(map[string]string)
	buf := make([]byte, 0, 256)
	index := 0
	for _, e := range h.Events {
		if !opts.View.Includes(e.Op) || (opts.Key != "" && e.Key != opts.Key) {
			continue
		}
		if opts.View == Leases && e.Op == Extend {
			continue
		}
		jp := p.assign(e)
		buf = append(buf[:0], "{:process "...)
		buf = strconv.AppendInt(buf, int64(jp), 10)
		buf = append(buf, ", :type :"...)
		typ := e.Type
		if opts.View == CriticalSections && e.Op == Exit && typ == Fail {
			typ = OK
		}
		buf = append(buf, typ.String()...)
		buf = append(buf, ", :f :"...)
		buf = append(buf, ednName(e.Op, opts.View)...)
		buf = append(buf, ", :value "...)
		if opts.Key != "" {
			buf = append(buf, "nil"...)
		} else {
			q, ok := quoted[e.Key]
			if !ok {
				q = ednString(e.Key)
				quoted[e.Key] = q
			}
			buf = append(buf, '[')
			buf = append(buf, q...)
			buf = append(buf, " nil]"...)
		}
		buf = append(buf, ", :time "...)
		buf = strconv.AppendInt(buf, e.Time, 10)
		buf = append(buf, ", :index "...)
		buf = strconv.AppendInt(buf, int64(index), 10)
		if jp != e.Process {
			buf = append(buf, ", :client "...)
			buf = strconv.AppendInt(buf, int64(e.Process), 10)
		}
		if opts.View == AllOps {
			buf = append(buf, ", :lease "...)
			buf = strconv.AppendInt(buf, int64(e.Lease), 10)
		}
		if e.Fence != 0 && opts.View != CriticalSections {
			buf = append(buf, ", :fence "...)
			buf = strconv.AppendUint(buf, e.Fence, 10)
		}
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("history: write: %w", err)
		}
		index++
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("history: write: %w", err)
	}
	return nil
}

// ednName is op's :f in view.
func ednName(op Op, view View) string {
	if view == CriticalSections {
		if op == Enter {
			return "acquire"
		}
		return "release"
	}
	return op.String()
}

// ednString quotes s as an EDN string.
func ednString(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, r := range s {
		switch r {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\t':
			b = append(b, `\t`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, '"'))
}

// processes maps lockbench clients to Jepsen processes, each running one
// operation at a time and retired after an :info.
type processes struct {
	lanes  map[int][]int // client → its Jepsen processes, first the client's own number
	busy   map[int]bool  // Jepsen process → an operation is under way
	dead   map[int]bool  // Jepsen process → crashed by an :info
	byCall map[int]int   // invocation index → its Jepsen process
	fresh  int           // next unused Jepsen process
}

func newProcesses(h *History) *processes {
	p := &processes{lanes: map[int][]int{}, busy: map[int]bool{}, dead: map[int]bool{}, byCall: map[int]int{}}
	for _, e := range h.Events {
		p.fresh = max(p.fresh, e.Process+1)
	}
	return p
}

// assign returns e's Jepsen process.
func (p *processes) assign(e Event) int {
	if e.Type != Invoke {
		jp, ok := p.byCall[e.Invoke]
		if !ok {
			return e.Process // its invocation was not written
		}
		delete(p.byCall, e.Invoke)
		p.busy[jp] = false
		if e.Type == Info {
			p.dead[jp] = true
		}
		return jp
	}
	lanes, ok := p.lanes[e.Process]
	if !ok {
		lanes = []int{e.Process}
	}
	jp := -1
	for _, l := range lanes {
		if !p.dead[l] && !p.busy[l] {
			jp = l
			break
		}
	}
	if jp < 0 {
		jp = p.fresh
		p.fresh++
		lanes = append(lanes, jp)
	}
	p.lanes[e.Process] = lanes
	p.busy[jp] = true
	p.byCall[e.Index] = jp
	return jp
}
