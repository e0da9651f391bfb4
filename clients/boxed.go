package clients

// status returns the status replies every lock gets ("OK" to SET, say) as
// an any made once, where boxing the reply's string would allocate.
func status(s string) (any, bool) {
	switch s {
	case "OK":
		return "OK", true
	case "QUEUED":
		return "QUEUED", true
	}
	return nil, false
}

// boxed returns s as an any. The names and flags of the locks' commands
// and small key counts come boxed once (a constant's any is static data);
// any other string is boxed here, which allocates.
func boxed(s string) any {
	switch s {
	case "SET":
		return "SET"
	case "NX":
		return "NX"
	case "PX":
		return "PX"
	case "GET":
		return "GET"
	case "DEL":
		return "DEL"
	case "EVALSHA":
		return "EVALSHA"
	case "EVAL":
		return "EVAL"
	case "PEXPIRE":
		return "PEXPIRE"
	case "SETNX":
		return "SETNX"
	case "WATCH":
		return "WATCH"
	case "UNWATCH":
		return "UNWATCH"
	case "1":
		return "1"
	case "2":
		return "2"
	case "3":
		return "3"
	}
	return s
}
