//go:build !unix

package main

import "os"

// windowWidth is 0 (unknown) where lockbench cannot ask the terminal: the
// table keeps render.DefaultWidth, or $COLUMNS.
func windowWidth(*os.File) int { return 0 }
