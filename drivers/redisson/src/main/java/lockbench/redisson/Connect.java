package lockbench.redisson;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

/**
 * The process's one RedissonClient, from init's topology. Everything not said
 * here is Redisson's default (timeouts, retries, pool sizes): the library as
 * its users run it. Departures: the watchdog timeout (lockbench's TTL, for the
 * forms that use the watchdog), reads from the master (the driver's own PTTL
 * of a lock it just took), no check that Sentinel knows other Sentinels, and
 * the pools' idle minimum no larger than the clients served (fewer
 * connections opened at start).
 */
final class Connect {
    private Connect() {
    }

    /**
     * client connects as init says. watchdogMs: the lockWatchdogTimeout (0:
     * Redisson's 30 s). unsynced turns off checkLockSyncedSlaves, which by
     * default makes each lock write wait (WAIT, slavesSyncTimeout 1 s) for a
     * replica and fails the call when none acknowledged it.
     */
    static RedissonClient client(Settings s, long watchdogMs, boolean unsynced) {
        Config c = new Config();
        if (unsynced) {
            c.setCheckLockSyncedSlaves(false);
        }
        if (watchdogMs > 0) {
            // the watchdog renews every watchdogMs/3 by watchdogMs
            c.setLockWatchdogTimeout(watchdogMs);
        }
        String user = s.username.isEmpty() ? null : s.username;
        int idle = Math.min(24, Math.max(1, s.clients));
        switch (s.mode) {
            case "single": {
                SingleServerConfig sc = c.useSingleServer().setAddress("redis://" + s.addrs.get(0));
                sc.setConnectionMinimumIdleSize(idle);
                sc.setSubscriptionConnectionMinimumIdleSize(1);
                sc.setUsername(user);
                sc.setPassword(s.password);
                break;
            }
            case "sentinel": {
                SentinelServersConfig sc = c.useSentinelServers().setMasterName(s.masterName);
                for (String a : s.addrs) {
                    sc.addSentinelAddress("redis://" + a);
                }
                sc.setCheckSentinelsList(false);
                pools(sc, idle);
                sc.setUsername(user);
                sc.setPassword(s.password);
                break;
            }
            case "cluster": {
                ClusterServersConfig sc = c.useClusterServers();
                for (String a : s.addrs) {
                    sc.addNodeAddress("redis://" + a);
                }
                pools(sc, idle);
                sc.setUsername(user);
                sc.setPassword(s.password);
                break;
            }
            default:
                throw new IllegalArgumentException(s.mode);
        }
        return Redisson.create(c);
    }

    private static void pools(BaseMasterSlaveServersConfig<?> sc, int idle) {
        sc.setReadMode(ReadMode.MASTER);
        sc.setMasterConnectionMinimumIdleSize(idle);
        sc.setSlaveConnectionMinimumIdleSize(1);
        sc.setSubscriptionConnectionMinimumIdleSize(1);
    }
}
