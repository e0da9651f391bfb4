package progress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lockbench/lockbench/workloads"
)

// latencyBounds are the upper bounds of the acquire latency histogram's
// buckets, in seconds.
var latencyBounds = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// cellLabels are the labels of a cell's series.
type cellLabels struct {
	variant string
	clients int
}

// Exporter is a prometheus.Collector of the run's live counters, labelled
// by variant and clients: the cells that ended plus the one running,
// warm-up included. Register it on a registry of its own (Server does).
type Exporter struct {
	mu      sync.Mutex
	ended   map[cellLabels]workloads.LiveSnapshot
	current *workloads.Live
	labels  cellLabels

	acquisitions, failures, errs, timeouts, overlaps, latency *prometheus.Desc
}

var _ prometheus.Collector = (*Exporter)(nil)

// NewExporter returns an Exporter with no cell yet.
func NewExporter() *Exporter {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("lockbench_"+name, help, []string{"variant", "clients"}, nil)
	}
	return &Exporter{
		ended:        map[cellLabels]workloads.LiveSnapshot{},
		acquisitions: desc("acquisitions_total", "Successful lock acquisitions."),
		failures:     desc("acquire_failures_total", "Tries at acquiring that found the lock held (busy)."),
		errs:         desc("errors_total", "Redis or network errors."),
		timeouts:     desc("timeouts_total", "Acquisitions given up after the acquire timeout."),
		overlaps:     desc("overlaps_total", "Entries into the protected resource beyond its limit: mutual-exclusion violations."),
		latency: desc("acquire_latency_seconds",
			"Latency of successful acquisitions, retries included (from the intended start in an open loop); bucketed from 12.5%-wide buckets."),
	}
}

// Cell makes c the running cell; the one before has ended.
func (e *Exporter) Cell(c Cell) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.endCell()
	e.current, e.labels = c.Live, cellLabels{c.Variant, c.Clients}
}

// endCell folds the running cell into the ended ones; the caller holds mu.
func (e *Exporter) endCell() {
	if e.current != nil {
		e.ended[e.labels] = e.ended[e.labels].Add(e.current.Snapshot())
		e.current = nil
	}
}

// Describe sends the descriptions of the metrics.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{e.acquisitions, e.failures, e.errs, e.timeouts, e.overlaps, e.latency} {
		ch <- d
	}
}

// Collect sends every cell's metrics.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	all := make(map[cellLabels]workloads.LiveSnapshot, len(e.ended)+1)
	for l, s := range e.ended {
		all[l] = s
	}
	if e.current != nil {
		all[e.labels] = all[e.labels].Add(e.current.Snapshot())
	}
	e.mu.Unlock()
	for l, s := range all {
		labels := []string{l.variant, strconv.Itoa(l.clients)}
		for _, c := range []struct {
			desc *prometheus.Desc
			n    int64
		}{{e.acquisitions, s.Acquisitions}, {e.failures, s.Busy}, {e.errs, s.Errors}, {e.timeouts, s.Timeouts}, {e.overlaps, s.Overlaps}} {
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(c.n), labels...)
		}
		ch <- prometheus.MustNewConstHistogram(e.latency, uint64(s.Acquisitions), s.AcquireSum.Seconds(), buckets(s), labels...)
	}
}

// buckets are the cumulative counts of s's acquisitions at or under each
// of latencyBounds: a live bucket counts under a bound when its own upper
// bound is not above it.
func buckets(s workloads.LiveSnapshot) map[float64]uint64 {
	out := make(map[float64]uint64, len(latencyBounds))
	var cumulative uint64
	i := 0
	for _, bound := range latencyBounds {
		for ; i < len(s.Acquire) && workloads.LiveBucketBound(i).Seconds() <= bound; i++ {
			cumulative += uint64(s.Acquire[i])
		}
		out[bound] = cumulative
	}
	return out
}

// Server serves an Exporter's metrics at /metrics on a private registry.
type Server struct {
	ln     net.Listener
	srv    *http.Server
	served chan error
}

// Listen opens addr (host:port; port 0 picks a free one) and serves e's
// metrics on it until Close. It fails at once when addr cannot be opened.
func Listen(addr string, e *Exporter) (*Server, error) {
	reg := prometheus.NewRegistry()
	if err := reg.Register(e); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s := &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, served: make(chan error, 1)}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server, waits for the requests in progress (up to a
// second) and returns what ended its serving, if anything but Close.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	shut := s.srv.Shutdown(ctx)
	if err := <-s.served; !errors.Is(err, http.ErrServerClosed) {
		return errors.Join(err, shut)
	}
	if shut != nil {
		_ = s.srv.Close()
	}
	return shut
}
