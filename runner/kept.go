package runner

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/lockbench/lockbench/record"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/witness"
)

// WitnessPasswordEnv is the environment variable the witness's password
// is read from.
const WitnessPasswordEnv = "LOCKBENCH_WITNESS_PASSWORD"

// ParseWitness parses the URL of a witness (redis://host:port); its
// password comes from $LOCKBENCH_WITNESS_PASSWORD, never the URL, which
// would show it in the process list. Every error is the URL's fault.
func ParseWitness(raw string) (topologies.Endpoint, error) {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return topologies.Endpoint{}, fmt.Errorf("a password in the URL would show in the process list: give it in $%s", WitnessPasswordEnv)
		}
	}
	ep, err := topologies.ParseTarget(raw, false)
	if err != nil {
		return ep, err
	}
	ep.Password = os.Getenv(WitnessPasswordEnv)
	return ep, nil
}

// KeptRecords are the records the shards of run runID left in the
// witness at ep (named by url in errors). A record that does not decode is
// an error wrapping record.ErrBadRecord.
func KeptRecords(ctx context.Context, ep topologies.Endpoint, url, runID string) ([]*record.Record, error) {
	w, err := witness.Dial(ctx, ep)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	raw, err := w.Records(ctx, KeyPrefix(runID))
	if err != nil {
		return nil, err
	}
	var recs []*record.Record
	for i, data := range raw {
		rec, err := record.Decode(fmt.Sprintf("%s record %d of run %s", url, i+1, runID), data)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}
