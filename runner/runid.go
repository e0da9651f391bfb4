package runner

import (
	"fmt"
	"regexp"
)

// runIDPattern is what a run id may be: it names keys and a file.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// CheckRunID says why id cannot be a run id (given with --run-id); nil
// when it can.
func CheckRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("%q is not a run id (1 to 64 of A-Z a-z 0-9 . _ -)", id)
	}
	return nil
}
