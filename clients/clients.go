package clients

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/variants"
)

// Names lists the client libraries, the default first.
var Names = []string{"rueidis", "go-redis"}

// Errors of connecting. Compare them with errors.Is.
var (
	// ErrUnknown: no adapter of that name.
	ErrUnknown = errors.New("unknown client")
	// ErrUnreachable: the server did not answer PING in time.
	ErrUnreachable = errors.New("redis unreachable")
)

// ConnectTimeout bounds dialing and the first PING.
const ConnectTimeout = 3 * time.Second

// Options configures a client.
type Options struct {
	// Library is rueidis or go-redis. Default rueidis.
	Library string
	// PoolSize is the connections go-redis may open (one per concurrent
	// command). Default 10 per CPU, go-redis' own default. rueidis
	// pipelines every caller over one connection and ignores it.
	PoolSize int
}

// Client is a connection to one Redis node.
type Client interface {
	variants.Conn
	Close()
}

// Check returns an error naming the known libraries when name is unknown.
func Check(name string) error {
	for _, n := range Names {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("%w %q (known: %s)", ErrUnknown, name, strings.Join(Names, ", "))
}

// New connects to ep with the library of opts and checks with PING, within
// ConnectTimeout, that the server answers.
func New(ctx context.Context, ep topologies.Endpoint, opts Options) (Client, error) {
	if opts.Library == "" {
		opts.Library = Names[0]
	}
	if err := Check(opts.Library); err != nil {
		return nil, err
	}
	var (
		c   Client
		err error
	)
	switch opts.Library {
	case "rueidis":
		c, err = newRueidis(ep)
	default:
		c = newGoRedis(ep, opts.PoolSize)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, ep, err)
	}
	pctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	if _, err := c.Do(pctx, variants.Bare("PING")); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreachable, ep, err)
	}
	return c, nil
}
