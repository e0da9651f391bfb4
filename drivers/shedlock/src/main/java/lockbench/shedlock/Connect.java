package lockbench.shedlock;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The RedisConnectionFactory ShedLock's provider is given: spring-data-redis's
 * LettuceConnectionFactory at its defaults (one shared native connection for
 * every thread, 60 s command timeout), as a Spring application builds it from
 * spring.data.redis.* with nothing else set.
 */
final class Connect {
    private Connect() {
    }

    static LettuceConnectionFactory factory(Settings s) {
        RedisPassword password = s.password == null ? RedisPassword.none() : RedisPassword.of(s.password);
        String user = s.username.isEmpty() ? null : s.username;
        LettuceConnectionFactory f;
        switch (s.mode) {
            case "sentinel": {
                RedisSentinelConfiguration c = new RedisSentinelConfiguration();
                c.master(s.masterName);
                for (String a : s.addrs) {
                    c.sentinel(node(a));
                }
                c.setUsername(user);
                c.setPassword(password);
                f = new LettuceConnectionFactory(c);
                break;
            }
            case "cluster": {
                RedisClusterConfiguration c = new RedisClusterConfiguration();
                List<RedisNode> nodes = new ArrayList<>();
                for (String a : s.addrs) {
                    nodes.add(node(a));
                }
                c.setClusterNodes(nodes);
                c.setUsername(user);
                c.setPassword(password);
                f = new LettuceConnectionFactory(c);
                break;
            }
            default: {
                RedisNode n = node(s.addrs.get(0));
                RedisStandaloneConfiguration c = new RedisStandaloneConfiguration(n.getHost(), n.getPort());
                c.setUsername(user);
                c.setPassword(password);
                f = new LettuceConnectionFactory(c);
            }
        }
        // spring-data-redis 3.2 and later start the factory here (earlyStartup,
        // its default); earlier ones initialize it here
        f.afterPropertiesSet();
        return f;
    }

    private static RedisNode node(String addr) {
        int colon = addr.lastIndexOf(':');
        return new RedisNode(addr.substring(0, colon), Integer.parseInt(addr.substring(colon + 1)));
    }
}
