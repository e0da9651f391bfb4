package redisinfo

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Replication is what the "# Replication" section of INFO says of a
// node's place in replication.
type Replication struct {
	// Role is "master", or "replica" for Redis' "slave".
	Role string
	// MasterAddr is a replica's master, master_host:master_port; "" on a
	// master, or when the section does not say.
	MasterAddr string
	// LinkUp reports whether a replica's link to its master is up
	// (master_link_status:up): it has synced and follows the stream.
	LinkUp bool
	// Offset is master_repl_offset: on a master, how far its replication
	// stream goes; on a replica, how far into it the replica is. 0 when
	// the section does not say.
	Offset int64
	// Replicas are the replicas connected to a master (slave0, slave1,
	// ...), in order.
	Replicas []Replica
}

// Replica is one replica as its master lists it.
type Replica struct {
	// Addr is the replica's ip:port as the master knows it (the address it
	// announced, or the one it connected from).
	Addr string
	// State is online once the replica follows the stream; wait_bgsave,
	// send_bulk ... while it syncs.
	State string
	// Offset is how far into the stream the replica has acknowledged.
	Offset int64
	// Lag is the time since the replica last acknowledged, in whole
	// seconds. Offset and Lag are 0 when the line does not give them.
	Lag time.Duration
}

// ParseReplication reads the "# Replication" section of INFO text. A
// missing section or role, a role other than master or slave (a sentinel
// has no such section), or a malformed figure is an error.
func ParseReplication(text string) (Replication, error) {
	f, err := Section(text, "replication")
	if err != nil {
		return Replication{}, err
	}
	return replication(f)
}

// Replication reads the replication section, as [ParseReplication] does.
func (i Info) Replication() (Replication, error) {
	f, ok := i["replication"]
	if !ok {
		return Replication{}, fmt.Errorf("%w: no %q section", ErrMalformed, "replication")
	}
	return replication(f)
}

// replication reads the fields of the replication section.
func replication(f map[string]string) (Replication, error) {
	var r Replication
	var err error
	switch role := f["role"]; role {
	case "master":
		r.Role = "master"
	case "slave", "replica":
		r.Role = "replica"
	case "":
		return Replication{}, fmt.Errorf("%w: Replication section lacks role", ErrMalformed)
	default:
		return Replication{}, fmt.Errorf("%w: unknown role %q", ErrMalformed, role)
	}
	host, port := f["master_host"], f["master_port"]
	if r.Role == "replica" && host != "" && port != "" {
		r.MasterAddr = net.JoinHostPort(host, port)
	}
	r.LinkUp = r.Role == "replica" && f["master_link_status"] == "up"
	if v, ok := f["master_repl_offset"]; ok {
		if r.Offset, err = count("master_repl_offset", v); err != nil {
			return Replication{}, err
		}
	}
	// slave0, slave1, ... in order; connected_slaves says how many.
	for i := 0; ; i++ {
		v, ok := f["slave"+strconv.Itoa(i)]
		if !ok {
			break
		}
		replica, err := parseReplica(v)
		if err != nil {
			return Replication{}, fmt.Errorf("slave%d: %w", i, err)
		}
		r.Replicas = append(r.Replicas, replica)
	}
	return r, nil
}

// parseReplica reads a master's line of one replica, such as
// ip=127.0.0.1,port=6380,state=online,offset=42,lag=0.
func parseReplica(v string) (Replica, error) {
	attrs := map[string]string{}
	for attr := range strings.SplitSeq(v, ",") {
		key, value, ok := strings.Cut(attr, "=")
		if !ok {
			return Replica{}, fmt.Errorf("%w: replica %q: %q is not key=value", ErrMalformed, v, attr)
		}
		attrs[key] = value
	}
	ip, port := attrs["ip"], attrs["port"]
	if _, err := strconv.ParseUint(port, 10, 16); ip == "" || err != nil {
		return Replica{}, fmt.Errorf("%w: replica %q lacks ip= or port=", ErrMalformed, v)
	}
	r := Replica{Addr: net.JoinHostPort(ip, port), State: attrs["state"]}
	var lag int64
	for key, dst := range map[string]*int64{"offset": &r.Offset, "lag": &lag} {
		if v, ok := attrs[key]; ok {
			n, err := count(key, v)
			if err != nil {
				return Replica{}, err
			}
			*dst = n
		}
	}
	r.Lag = time.Duration(lag) * time.Second
	return r, nil
}

// count parses a non-negative integer figure.
func count(name, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %s is %q, not a count", ErrMalformed, name, v)
	}
	return n, nil
}
