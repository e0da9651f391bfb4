package topologies

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// peerPID returns which of pids holds the other end of c, a loopback TCP
// connection accepted here: the socket whose local address is c's remote
// one and whose remote address is c's local one (/proc/net/tcp) is open in
// that process (/proc/PID/fd).
func peerPID(c net.Conn, pids map[int]string) (int, error) {
	local, lok := c.RemoteAddr().(*net.TCPAddr)
	remote, rok := c.LocalAddr().(*net.TCPAddr)
	if !lok || !rok {
		return 0, errNoPeer
	}
	inode, err := socketInode(procAddr(local), procAddr(remote))
	if err != nil {
		return 0, err
	}
	want := "socket:[" + inode + "]"
	for pid := range pids {
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
	return 0, errNoPeer
}

// procAddr is a TCP address as /proc/net/tcp writes it: the IPv4 address
// as a little-endian hex word, a colon, the port in hex.
func procAddr(a *net.TCPAddr) string {
	ip := a.IP.To4()
	if ip == nil {
		return ""
	}
	return fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], a.Port)
}

// socketInode finds the inode of the IPv4 TCP socket from local to remote.
func socketInode(local, remote string) (string, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return "", err
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
	return "", errNoPeer
}
