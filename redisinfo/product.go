package redisinfo

import "strings"

// Product names the server software whose INFO server section is server,
// and its version: Valkey says server_name:valkey and valkey_version:8.0.1
// (and redis_version:7.2.4, the Redis it is compatible with), so a
// server_name and its own <name>_version come first; a server without
// server_name is Redis, of redis_version. Either is "" when INFO does not
// say it.
func Product(server map[string]string) (name, version string) {
	name = strings.ToLower(strings.TrimSpace(server["server_name"]))
	if name == "" {
		name = "redis"
	}
	version = server[name+"_version"]
	if version == "" {
		version = server["redis_version"]
	}
	return name, strings.TrimSpace(version)
}

// ProductText is the product and version of INFO server's text, as
// "valkey 8.0.1" or "redis 7.0.15" ("redis" alone without a version);
// an error when the text has no server section.
func ProductText(text string) (string, error) {
	server, err := Section(text, "server")
	if err != nil {
		return "", err
	}
	name, version := Product(server)
	return strings.TrimSpace(name + " " + version), nil
}
