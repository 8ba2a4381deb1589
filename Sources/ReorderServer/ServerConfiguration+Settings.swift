import ReorderAPI
import ReorderAuth
import ReorderBasics
import ReorderRedis
import ReorderTransport
import ReorderWebhooks

extension ServerConfiguration {
  /// Every setting of `reorder serve`, in the order `--help` and the README list them.
  public static let settings: [ServerSetting] = [
    .string("host", \.host, "Interface to listen on."),
    .integer("port", \.port, 0...65_535, "TCP port; 0 picks a free one."),
    .optionalString("web", \.webRoot, "Directory of the static web client (default: the one installed with reorder)."),
    .string("data", \.dataPath, "Data directory, or :memory: for a throwaway server."),
    .optionalString(
      "node-id", \.nodeID,
      "This node's id (1-16 of a-z 0-9); kept in the data directory when not given. Feeds replica and session ids."),
    .flag("demo", \.demo, "Create the demo boards (food, home, numbers, cities) if absent."),
    .integer(
      "max-message-bytes", \.maxMessageBytes, 1_024...(16 << 20),
      "Largest websocket message accepted; larger ones close the connection with 1009."),
    .integer(
      "max-queue-bytes", \.maxQueueBytes, 16_384...(1 << 30),
      "Outgoing bytes queued per connection before it is closed (1008)."),
    .integer(
      "slow-reader-bytes", \.slowReaderBytes, 0...(1 << 30),
      "Bytes sent to a connection and not yet read that make it watched; then it gets no drag presence "
        + "while more than this is unsent in the server's kernel (0: never held back)."),
    .integer(
      "slow-reader-seconds", \.slowReaderSeconds, 0...86_400,
      "Seconds a connection's unread backlog may stay over 4x --slow-reader-bytes (64 KiB at least) "
        + "without halving before it is closed with 4008 (0: never)."),
    .optionalString("tls-cert", \.tlsCertificatePath, "PEM certificate: serve https and wss (needs --tls-key)."),
    .optionalString("tls-key", \.tlsPrivateKeyPath, "PEM private key for --tls-cert."),
    .integer("ping-interval", \.pingIntervalSeconds, 1...3_600, "Seconds of silence before a connection is pinged."),
    .integer(
      "idle-timeout", \.idleTimeoutSeconds, 2...7_200,
      "Seconds of silence (no message, ping or pong) before a connection is dropped."),
    .choice(
      "event-loop", \.eventLoop, TransportConfiguration.EventLoop.allCases.map(\.rawValue),
      "How the server waits for events: libev (epoll; its cost does not grow with idle connections) or poll."),
    .integer("presence-hz", \.presenceHz, 1...120, "Drag presence frames per second per connection under load."),
    .integer(
      "presence-max-hz", \.presenceMaxHz, 1...1_000,
      "Drag presence frames per second per connection on a light server (<= --presence-hz: fixed rate)."),
    .integer(
      "presence-budget", \.presenceBudget, 1...10_000_000,
      "Drag presence frames per second, server-wide, before presence slows towards --presence-hz."),
    .integer(
      "max-ops-per-second", \.maxOpsPerSecond, 1...1_000_000,
      "Ops per second per connection (token bucket; bursts up to twice this)."),
    .integer(
      "max-broadcasts-per-second", \.maxBroadcastsPerSecond, 1...1_000_000,
      "Broadcast messages per second per connection (token bucket; bursts up to twice this)."),
    .integer("max-items-per-room", \.maxItemsPerRoom, 1...10_000_000, "Items per room (deleted ones count)."),
    .integer("max-lists-per-room", \.maxListsPerRoom, 1...100_000, "Lists per room."),
    .integer("max-rooms", \.maxRooms, 1...1_000_000, "Rooms loaded at once."),
    .integer("max-connections-per-room", \.maxConnectionsPerRoom, 1...1_000_000, "Connections per room."),
    .integer(
      "drain-seconds", \.drainSeconds, 0...3_600,
      "SIGTERM or POST /api/v1/admin/drain: /healthz turns 503, websockets close with 1012 spread over this."),
    .integer(
      "room-idle-seconds", \.roomIdleSeconds, 0...86_400, "Seconds a room stays loaded after its last connection left."),
    .integer(
      "history-ops", \.historyOps, 1...10_000_000,
      "Catch-up window in ops; the log keeps this many (and the idempotency window) before each snapshot."),
    .integer("snapshot-every", \.snapshotEvery, 1...10_000_000, "Write a room snapshot every this many ops."),
    .string(
      "allowed-origins", \.allowedOrigins,
      "Origins whose pages may connect, comma separated (https://app.example.com, https://*.example.com); "
        + "empty: this server's own."),
    .integer(
      "max-connections-per-ip", \.maxConnectionsPerIP, 1...1_000_000,
      "Concurrent websockets per client address; more get HTTP 429."),
    .integer(
      "max-handshakes-per-ip", \.maxHandshakesPerIP, 1...1_000_000,
      "Websocket handshakes per second per client address (bursts of 4x); more get HTTP 429."),
    .string(
      "trust-proxy", \.trustProxy,
      "Proxies (comma-separated CIDRs) whose X-Forwarded-For names the client address."),
    .optionalString(
      "auth-secret-file", \.authSecretFile,
      "HS256 secret (at least 32 bytes) that room tokens are signed with: tokens are required (docs/AUTH.md)."),
    .optionalString(
      "auth-public-key", \.authPublicKey, "PEM public key (ES256 or RS256) that room tokens are signed for."),
    .optionalString(
      "auth-jwks-file", \.authJWKSFile,
      "JWK Set of the keys room tokens are signed with (oct HS256, EC P-256 ES256, RSA RS256); a token's kid "
        + "picks its key, so keys can rotate (docs/AUTH.md). Instead of --auth-secret-file / --auth-public-key."),
    .optionalString("auth-audience", \.authAudience, "The aud room tokens must carry."),
    .optionalString("auth-issuer", \.authIssuer, "The iss room tokens must carry."),
    .optionalString(
      "api-key-file", \.apiKeyFile,
      "Keys of the HTTP API /api/v1, one per line (at least 32 characters); without it the API is off."),
    .integer(
      "api-requests-per-second", \.apiRequestsPerSecond, 1...1_000_000,
      "HTTP API requests per second per key (token bucket; bursts up to twice this); more get 429."),
    .optionalString(
      "webhook-url", \.webhookURL,
      "POST signed board.changed / board.created / board.deleted events here, http(s):// (docs/WEBHOOKS.md)."),
    .optionalString(
      "webhook-secret-file", \.webhookSecretFile,
      "The webhooks' Standard Webhooks secret, whsec_ + base64 of 24-64 random bytes (needs --webhook-url)."),
    .optionalString(
      "metrics-listen", \.metricsListen,
      "Serve /metrics on HOST:PORT instead of the main port (which then answers 404)."),
    .flag("metrics-auth", \.metricsAuth, "/metrics wants Authorization: Bearer <API key> (needs --api-key-file)."),
    .optionalString(
      "redis", \.redis,
      "Cluster mode: share every room with the other nodes through this Redis, redis://HOST:PORT[/DB] "
        + "(docs/CLUSTER.md). An op is acknowledged once Redis has it: run Redis with appendonly yes and "
        + "appendfsync always for nothing acknowledged lost when Redis or its machine crashes."),
    .optionalString(
      "redis-cluster", \.redisCluster,
      "Cluster mode over a Redis Cluster: its seed nodes, redis://HOST:PORT[,redis://HOST:PORT...] "
        + "(docs/CLUSTER.md, \"Redis Cluster\"). Each room lives on the master of its slot."),
    .integer(
      "redis-wait-replicas", \.redisWaitReplicas, 0...16,
      "Acknowledge an op once this many Redis replicas have it too (WAIT, at most 1 s; else it is rejected "
        + "unavailable); nodes then apply each room's log only up to what replicas have, so a failover takes "
        + "back nothing acknowledged or applied. 0: once the master has it (docs/CLUSTER.md, \"Replicas and failover\")."
    ),
    .optionalString(
      "redis-user", \.redisUser, "The Redis ACL user name, for AUTH user password (needs --redis-password-file)."),
    .optionalString(
      "redis-password-file", \.redisPasswordFile,
      "The Redis password, in a file of its own (needs --redis or --redis-cluster)."),
    .flag(
      "allow-anonymous", \.allowAnonymous,
      "Serve a non-loopback address without tokens: anyone who can reach it may edit every board."),
    .choice("log-level", \.logLevel, ["error", "warn", "info", "debug"], "Least severe log level printed."),
    .choice("log-format", \.logFormat, ["text", "json"], "Log lines as text or as JSON objects."),
  ]

  /// Checks what one setting alone cannot: settings that go together, and the node id's form.
  /// - Throws: `ConfigurationError` naming the flags.
  public func validate() throws(ConfigurationError) {
    if (tlsCertificatePath == nil) != (tlsPrivateKeyPath == nil) {
      throw ConfigurationError("--tls-cert and --tls-key go together: give both or neither")
    }
    if idleTimeoutSeconds <= pingIntervalSeconds {
      throw ConfigurationError("--idle-timeout must be larger than --ping-interval")
    }
    if let nodeID, !NodeIdentity.isValid(nodeID) {
      throw ConfigurationError("--node-id takes 1-16 of a-z 0-9, not '\(nodeID)'")
    }
    _ = try admissionLimits
    _ = try tokenVerifier
    _ = try apiKeys
    _ = try webhookTarget
    _ = try metricsAddress
    _ = try redisTarget
    if metricsAuth && apiKeyFile == nil {
      throw ConfigurationError("--metrics-auth checks the API's keys: give --api-key-file too")
    }
    if !AddressRange.isLoopback(host) && !allowAnonymous && !authEnabled {
      throw ConfigurationError(
        "refusing to serve \(host) without access control: anyone who can reach it could edit every board. "
          + "Turn tokens on with --auth-secret-file FILE (openssl rand -hex 32 > FILE; docs/AUTH.md), "
          + "--auth-public-key FILE or --auth-jwks-file FILE, or give --allow-anonymous to serve anyone anyway")
    }
  }

  /// The Redis of cluster mode, when `--redis` or `--redis-cluster` is given (the password read
  /// from `--redis-password-file`, the user from `--redis-user`).
  var redisTarget: RedisTarget? {
    get throws(ConfigurationError) {
      if redisWaitReplicas > 0 && redis == nil && redisCluster == nil {
        throw ConfigurationError("--redis-wait-replicas needs --redis or --redis-cluster")
      }
      do {
        return try RedisTarget(redis: redis, cluster: redisCluster, user: redisUser, passwordFile: redisPasswordFile)
      } catch {
        throw ConfigurationError(error.description)
      }
    }
  }

  /// The API's keys, when `--api-key-file` is given.
  var apiKeys: APIKeys? {
    get throws(ConfigurationError) { try apiKeyFile.map { file throws(ConfigurationError) in try APIKeys(file: file) } }
  }

  /// Where webhooks go and what signs them, when `--webhook-url` is given.
  var webhookTarget: (url: String, secret: WebhookSecret)? {
    get throws(ConfigurationError) {
      switch (webhookURL, webhookSecretFile) {
      case (nil, nil):
        return nil
      case (let url?, let file?):
        guard HTTPClient.accepts(url: url) else {
          throw ConfigurationError("--webhook-url takes http://HOST[:PORT]/PATH or https://…, not '\(url)'")
        }
        return (url, try WebhookSecret(file: file))
      default:
        throw ConfigurationError("--webhook-url and --webhook-secret-file go together: give both or neither")
      }
    }
  }

  /// The interface and port of `--metrics-listen`, when given.
  var metricsAddress: (host: String, port: Int)? {
    get throws(ConfigurationError) {
      guard let metricsListen else { return nil }
      guard let colon = metricsListen.lastIndex(of: ":"),
        let port = Int(metricsListen[metricsListen.index(after: colon)...]),
        (0...65_535).contains(port), colon != metricsListen.startIndex
      else {
        throw ConfigurationError("--metrics-listen takes HOST:PORT such as 127.0.0.1:9090, not '\(metricsListen)'")
      }
      var host = String(metricsListen[..<colon])
      if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
      return (host, port)
    }
  }

  /// Whether room tokens are checked.
  public var authEnabled: Bool { authSecretFile != nil || authPublicKey != nil || authJWKSFile != nil }

  /// The token verifier, when tokens are checked: the key files read now (`TokenVerifier.load`), so
  /// asking again re-reads them — what a reload does (it keeps the old verifier when this throws).
  var tokenVerifier: TokenVerifier? {
    get throws(ConfigurationError) {
      let given = [
        ("--auth-jwks-file", authJWKSFile), ("--auth-secret-file", authSecretFile),
        ("--auth-public-key", authPublicKey),
      ].filter { $0.1 != nil }.map(\.0)
      if given.count > 1 {
        throw ConfigurationError(
          "give one of --auth-jwks-file, --auth-secret-file and --auth-public-key, not \(given.joined(separator: " and ")): "
            + "a JWK Set holds secrets and public keys alike")
      }
      do {
        return try TokenVerifier.load(
          jwksFile: authJWKSFile, secretFile: authSecretFile, publicKeyFile: authPublicKey, audience: authAudience,
          issuer: authIssuer)
      } catch {
        throw ConfigurationError(error.description)
      }
    }
  }

  /// What websocket upgrades are held to (`AdmissionControl`).
  var admissionLimits: AdmissionControl.Limits {
    get throws(ConfigurationError) {
      var proxies: [AddressRange] = []
      for entry in trustProxy.split(separator: ",") where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
        guard let range = AddressRange(String(entry)) else {
          throw ConfigurationError("--trust-proxy takes CIDRs such as 10.0.0.0/8 or ::1, not '\(entry)'")
        }
        proxies.append(range)
      }
      return AdmissionControl.Limits(
        origins: try OriginPolicy(list: allowedOrigins, secure: tlsCertificatePath != nil),
        maxConnectionsPerAddress: maxConnectionsPerIP, handshakesPerSecond: Double(maxHandshakesPerIP),
        trustedProxies: proxies)
    }
  }
}
