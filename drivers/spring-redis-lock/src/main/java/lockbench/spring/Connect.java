package lockbench.spring;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * The process's one LettuceConnectionFactory (spring-data-redis), from init's
 * topology. Everything not said here is spring-data-redis's and Lettuce's
 * default, as a Spring Boot service gets it: one shared native connection for
 * every command (shareNativeConnection), a 60 s command timeout, Lettuce's
 * auto-reconnect; a RedisMessageListenerContainer (the pub/sub forms) opens
 * its own subscription connection.
 */
final class Connect {
    private Connect() {
    }

    static LettuceConnectionFactory factory(Settings s) {
        RedisConfiguration conf;
        RedisPassword pw = s.password == null ? RedisPassword.none() : RedisPassword.of(s.password);
        String user = s.username.isEmpty() ? null : s.username;
        switch (s.mode) {
            case "single": {
                String[] hp = hostPort(s.addrs.get(0));
                RedisStandaloneConfiguration c = new RedisStandaloneConfiguration(hp[0], Integer.parseInt(hp[1]));
                c.setUsername(user);
                c.setPassword(pw);
                conf = c;
                break;
            }
            case "sentinel": {
                RedisSentinelConfiguration c = new RedisSentinelConfiguration();
                c.master(s.masterName);
                for (String a : s.addrs) {
                    String[] hp = hostPort(a);
                    c.sentinel(hp[0], Integer.parseInt(hp[1]));
                }
                c.setUsername(user);
                c.setPassword(pw);
                conf = c;
                break;
            }
            case "cluster": {
                RedisClusterConfiguration c = new RedisClusterConfiguration();
                List<RedisNode> nodes = new ArrayList<>();
                for (String a : s.addrs) {
                    String[] hp = hostPort(a);
                    nodes.add(new RedisNode(hp[0], Integer.parseInt(hp[1])));
                }
                c.setClusterNodes(nodes);
                c.setUsername(user);
                c.setPassword(pw);
                conf = c;
                break;
            }
            default:
                throw new IllegalArgumentException(s.mode);
        }
        LettuceConnectionFactory f = new LettuceConnectionFactory(conf, org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.defaultConfiguration());
        // spring-data-redis 3.2 and later start the factory here (earlyStartup);
        // before 3.2 afterPropertiesSet is all there is
        f.afterPropertiesSet();
        return f;
    }

    private static String[] hostPort(String addr) {
        int i = addr.lastIndexOf(':');
        return new String[] {addr.substring(0, i), addr.substring(i + 1)};
    }
}
