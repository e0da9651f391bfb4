package topologies

// ClientProcess records that the process pid, one lockbench started (a
// lock driver's), is a client of group (clients, clients-a, ...): its
// connections to the nodes' fronts, made at addresses the nodes announce
// (a Sentinel's master, a cluster's redirects), go on the links from
// group, as lockbench's own clients' do. Without proxies it changes
// nothing.
func (l *Local) ClientProcess(pid int, group string) { l.started(pid, group) }
