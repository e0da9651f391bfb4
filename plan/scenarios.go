package plan

// Scenarios are the built-in scenarios, each reproducing a claim of the
// seeds or of the literature on Redis locks.
var Scenarios = []Scenario{
	{
		Name: "baseline", Tests: "no fault, TTL far above the hold time",
		Source:   "DESIGN.md: a correct variant under no faults must report zero violations",
		Predicts: "0 overlaps and 0 lost updates for every lock; none overlaps",
		Variants: []string{"none", "simple", "setnx-expire", "set-nx-ex", "get-del", "lua-release", "watchdog"},
		Clients:  []int{16}, Keys: 1, TTL: "10s", Hold: "1ms", Duration: "3s", Warmup: "500ms",
	},
	{
		Name: "ticket-sale", Tests: "the ticket sale: query the stock, hold, write it back decremented; lost updates are tickets oversold",
		Source: "seed 002 §1.2", Predicts: "without a lock tickets are oversold; with one, none are",
		Variants: []string{"none", "lua-release"}, Clients: []int{16}, Keys: 1, Hold: "1ms", Duration: "3s", Warmup: "0s",
	},
	{
		Name: "long-hold", Tests: "the work outlasts the TTL",
		Source:   "seed 002 §1.3, §1.6; Kleppmann 2016",
		Predicts: "set-nx-ex and lua-release overlap, set-nx-ex's late DEL frees another's lock (stale release); the watchdog does not overlap",
		Variants: []string{"set-nx-ex", "lua-release", "watchdog"}, Clients: []int{8}, Keys: 1,
		TTL: "200ms", Hold: "400ms", Duration: "3s", Warmup: "0s",
	},
	{
		Name: "holder-pause", Tests: "a holder freezes (a stop-the-world pause) for longer than the TTL, renewals too",
		Source: "Kleppmann 2016 (the GC pause example)", Predicts: "every TTL lock, the watchdog included, lets a second holder in",
		Variants: []string{"set-nx-ex", "lua-release", "watchdog"}, Clients: []int{4}, Keys: 1,
		TTL: "300ms", Hold: "10ms", Duration: "3s", Warmup: "0s", Faults: []string{"at=500ms holder-pause for=1s"},
	},
	{
		Name: "holder-crash", Tests: "a holder dies holding the lock",
		Source:   "seed 000 (locks with timeouts); seed 002 §1.3",
		Predicts: "the TTL-less simple lock is lost to the end (timeouts, unavailability); TTL locks come back after one TTL",
		Variants: []string{"simple", "set-nx-ex", "lua-release", "watchdog"}, Clients: []int{4}, Keys: 1,
		TTL: "500ms", AcquireTimeout: "700ms", Hold: "1ms", Duration: "3s", Warmup: "0s", Faults: []string{"at=500ms holder-crash"},
	},
	{
		Name: "crash-before-expire", Tests: "a client dies between SETNX and EXPIRE",
		Source:   "seed 000 带有超时限制特性的锁; seed 002 §1.3",
		Predicts: "setnx-expire comes back after one TTL, through a waiter that finds no expiry and sets it",
		Variants: []string{"setnx-expire"}, Clients: []int{4}, Keys: 1, TTL: "500ms", Hold: "1ms", Duration: "3s", Warmup: "0s",
		Faults: []string{"at=500ms step-crash step=after-setnx count=1"},
	},
	{
		Name: "release-race", Tests: "a delay between GET and DEL longer than the rest of the TTL",
		Source: "seed 002 §1.5", Predicts: "get-del deletes a newer holder's lock (overlaps); lua-release does not",
		Variants: []string{"get-del", "lua-release"}, Clients: []int{8}, Keys: 1, TTL: "150ms", Hold: "50ms",
		Duration: "3s", Warmup: "0s", Faults: []string{"at=0s step-delay step=between-get-and-del delay=250ms fraction=0.3"},
	},
	{
		Name: "failover", Tests: "the master fails over right after acquisitions; replication is asynchronous",
		Source:   "seed 002 §1.7; the Redis distributed-locks page",
		Predicts: "a lock written to the master but not yet to the replica is lost on failover: overlaps are possible",
		Variants: []string{"lua-release"}, Topology: "local:replicated?replicas=1", Clients: []int{8}, Keys: 1,
		Hold: "1ms", Duration: "3s", Warmup: "0s", Faults: []string{"at=1s failover node=replica-1"},
	},
	{
		Name: "redlock-minority", Tests: "2 of 5 Redlock masters paused, then killed",
		Source: "the Redis distributed-locks page (Redlock)", Predicts: "redlock keeps acquiring with no overlaps",
		Variants: []string{"redlock"}, Topology: "local:redlock?nodes=5", Clients: []int{8}, Keys: 1, Hold: "1ms",
		Retry: "random:5ms-60ms", Duration: "4s", Warmup: "0s",
		Faults: []string{"at=500ms pause node=node-1 for=1s", "at=500ms pause node=node-2 for=1s", "at=2s kill node=node-1", "at=2s kill node=node-2"},
	},
	{
		Name: "redlock-majority", Tests: "3 of 5 Redlock masters paused",
		Source: "the Redis distributed-locks page (Redlock)", Predicts: "redlock stops acquiring (timeouts) and still shows no overlaps",
		Variants: []string{"redlock"}, Topology: "local:redlock?nodes=5", Clients: []int{8}, Keys: 1, Hold: "1ms",
		AcquireTimeout: "300ms", Duration: "3s", Warmup: "0s",
		Faults: []string{"at=1s pause node=node-1 for=1s", "at=1s pause node=node-2 for=1s", "at=1s pause node=node-3 for=1s"},
	},
	{
		Name: "redlock-restart", Tests: "a Redlock master restarts without persistence, at once",
		Source:   "Kleppmann 2016; antirez, Is Redlock safe? (delayed restarts)",
		Predicts: "an immediate restart forgets locks and can let a second holder in; a restart delayed past the TTL cannot (run with --fault 'at=1s restart node=node-1 delay=2s' to compare)",
		Variants: []string{"redlock"}, Topology: "local:redlock?nodes=3", Clients: []int{8}, Keys: 1, TTL: "1s", Hold: "200ms",
		Duration: "4s", Warmup: "0s", Faults: []string{"at=1s restart node=node-1"},
	},
	{
		Name: "client-skew", Tests: "client clocks up to 2 s apart",
		Source:   "seed 000 计数信号量 (the basic semaphore is unfair)",
		Predicts: "sem-basic: clients with slow clocks take permits that are not free; sem-fair and sem-locked are not affected by the skew",
		Variants: []string{"sem-basic", "sem-fair", "sem-locked"}, Clients: []int{32}, Keys: 1, Limit: 5, Hold: "2ms",
		Duration: "3s", Warmup: "0s", ClockSkew: "uniform:-2s..2s",
	},
	{
		Name: "clock-jump", Tests: "every client clock jumps 20 s ahead mid-run",
		Source:   "seed 000 (semaphore timeouts on client time); Kleppmann 2016 (clock jumps)",
		Predicts: "the semaphores that time holders out by client time drop live permits after the jump",
		Variants: []string{"sem-basic", "sem-fair", "sem-locked"}, Clients: []int{16}, Keys: 1, Limit: 5, TTL: "10s",
		Hold: "2ms", Duration: "3s", Warmup: "0s", ClockJumps: []string{"+20s@1500ms"},
	},
	{
		Name: "last-permit-race", Tests: "many clients race for the last permits",
		Source: "seed 000 消除竞争条件", Predicts: "sem-fair admits more holders than its limit; sem-locked never does",
		Variants: []string{"sem-fair", "sem-locked"}, Clients: []int{32}, Keys: 1, Limit: 5, Hold: "2ms", Duration: "3s", Warmup: "0s",
	},
}
