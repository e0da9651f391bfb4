//go:build unix

package progress

import (
	"os"

	"golang.org/x/sys/unix"
)

// windowWidth is the width in columns of the terminal f is, 0 when it
// cannot be read.
func windowWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
