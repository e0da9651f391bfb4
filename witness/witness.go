package witness

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/redisinfo"
	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// keep is how long the witness keeps a run's keys after their last use.
const keep = 24 * time.Hour

// callTimeout bounds one call to the witness.
const callTimeout = 2 * time.Second

// Errors of the witness. Compare them with errors.Is.
var (
	// ErrPlanMismatch: a shard's plan differs from the plan the run's
	// first shard brought.
	ErrPlanMismatch = errors.New("witness: another shard of this run has another plan")
	// ErrArrivedTwice: a shard of a run arrived at a cell twice (a
	// restarted process reusing the run id).
	ErrArrivedTwice = errors.New("witness: this shard of the run already arrived (restarted? give the run a new --run-id)")
	// ErrSameServer: the witness is a server of the topology under test.
	ErrSameServer = errors.New("witness: is the Redis under test (give a Redis of its own, which no fault touches)")
)

// Witness is a connection to the witness Redis.
type Witness struct {
	conn clients.Client
	addr string
}

// Dial connects to the witness at ep. An unreachable witness is a
// clients.ErrUnreachable.
func Dial(ctx context.Context, ep topologies.Endpoint) (*Witness, error) {
	conn, err := clients.New(ctx, ep, clients.Options{Library: "rueidis"})
	if err != nil {
		return nil, fmt.Errorf("--witness: %w", err)
	}
	return &Witness{conn: conn, addr: ep.Addr}, nil
}

// Close closes the connection.
func (w *Witness) Close() { w.conn.Close() }

// Addr is the witness's address.
func (w *Witness) Addr() string { return w.addr }

// CheckApart returns ErrSameServer when the witness is one of the servers
// conns reach (compared by the servers' run_id) or has one of addrs.
func (w *Witness) CheckApart(ctx context.Context, addrs []string, conns []clients.Client) error {
	for _, a := range addrs {
		if a == w.addr {
			return fmt.Errorf("%w: %s", ErrSameServer, a)
		}
	}
	id, err := ServerID(ctx, w.conn)
	if err != nil {
		return err
	}
	for _, c := range conns {
		if other, err := ServerID(ctx, c); err == nil && other == id {
			return fmt.Errorf("%w: %s has the run_id of a server under test", ErrSameServer, w.addr)
		}
	}
	return nil
}

// ServerID returns the run_id of the server conn reaches (INFO server).
func ServerID(ctx context.Context, conn variants.Conn) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	reply, err := conn.Do(cctx, variants.Bare("INFO", "server"))
	if err != nil {
		return "", fmt.Errorf("witness: INFO server: %w", err)
	}
	info, _ := reply.(string)
	id, err := redisinfo.Field(info, "server", "run_id")
	if err != nil {
		return "", fmt.Errorf("witness: %w", err)
	}
	return id, nil
}

// run runs script with keys and args within callTimeout.
func (w *Witness) run(ctx context.Context, script *variants.Script, keys []string, args ...string) (any, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	reply, err := script.Run(cctx, w.conn, keys, args...)
	if err != nil {
		return nil, fmt.Errorf("witness %s: %w", w.addr, err)
	}
	return reply, nil
}

// keepSeconds is keep in the seconds EXPIRE takes.
var keepSeconds = strconv.Itoa(int(keep / time.Second))
