// Package outputs checks the files a command of lockbench will write
// before it starts any load, so that a run never measures for minutes and
// then fails to keep what it measured: a file's directory must exist and
// take a new file, a directory lockbench creates (--hlog) must have a
// parent that exists, the default record directory (results/runs/) must
// exist or be creatable, and a record of the same run must not be
// replaced unnoticed. Every error names the flag and says why; all of
// them are bad input. After the load, SaveRecord saves a record where it
// was asked for, else in a fallback file, and says where it went.
package outputs
