package procfs

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// ErrNoSocket: no IPv4 TCP socket from that local address to that remote
// one is open here (or there is no /proc/net/tcp to say).
var ErrNoSocket = errors.New("procfs: no such socket")

// SocketOwner returns which of pids has open the IPv4 TCP socket from
// local to remote (as /proc/net/tcp lists it, its inode among the links of
// /proc/PID/fd); ErrNoSocket when none has.
func SocketOwner(local, remote *net.TCPAddr, pids []int) (int, error) {
	inode, err := socketInode(tcpAddr(local), tcpAddr(remote))
	if err != nil {
		return 0, err
	}
	want := "socket:[" + inode + "]"
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd"
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // gone
		}
		for _, e := range entries {
			if link, err := os.Readlink(dir + "/" + e.Name()); err == nil && link == want {
				return pid, nil
			}
		}
	}
	return 0, ErrNoSocket
}

// tcpAddr is a TCP address as /proc/net/tcp writes it: the IPv4 address
// as a little-endian hex word, a colon, the port in hex; "" for another
// address family.
func tcpAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		return ""
	}
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], a.Port)
}

// socketInode finds the inode of the IPv4 TCP socket from local to remote.
func socketInode(local, remote string) (string, error) {
	if local == "" || remote == "" {
		return "", ErrNoSocket
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoSocket, err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
		fields := strings.Fields(s.Text())
		if len(fields) > 9 && fields[1] == local && fields[2] == remote {
			return fields[9], nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", ErrNoSocket
}
