//go:build !unix

package progress

import "os"

// windowWidth is 0 (unknown) where lockbench cannot ask the terminal: a
// table keeps its default width, or $COLUMNS.
func windowWidth(*os.File) int { return 0 }
