import ReorderRooms
import ReorderTransport
import ReorderWebhooks

/// Everything `reorder serve` can be told, with the embedded defaults: set here, or — for the
/// transport's and the rooms' own settings — taken from `TransportConfiguration` and `RoomLimits`,
/// so each default is written once.
///
/// Every field has a `--flag` and a `REORDER_*` environment variable (`settings`; README
/// "Configuration").
public struct ServerConfiguration: Sendable {
  /// Interface to bind (`--host`, `REORDER_HOST`).
  public var host = "127.0.0.1"
  /// TCP port; 0 picks a free one (`--port`, `REORDER_PORT`).
  public var port = 8080
  /// Directory of the static web client (`--web`, `REORDER_WEB`); empty serves no static files;
  /// nil (the default) serves the client installed with the executable (`WebRoot.installed()`).
  public var webRoot: String?
  /// This node's id (`--node-id`); nil: the one kept in the data directory, made on first start.
  public var nodeID: String?
  /// Data directory, or `:memory:` for a throwaway server (`--data`, `REORDER_DATA`).
  public var dataPath = "./data"
  /// Largest accepted websocket message (`--max-message-bytes`).
  public var maxMessageBytes = TransportConfiguration().maxMessageBytes
  /// Largest outgoing queue per connection before it is closed (`--max-queue-bytes`).
  public var maxQueueBytes = TransportConfiguration().maxQueueBytes
  /// A connection with more than this many bytes unread is watched, and gets no presence while
  /// more than this is unsent in the server's kernel (`--slow-reader-bytes`; 0: never).
  public var slowReaderBytes = TransportConfiguration().slowReaders.gateBytes
  /// A connection whose backlog stays high this long is closed with 4008 (`--slow-reader-seconds`;
  /// 0: never).
  public var slowReaderSeconds = Int(TransportConfiguration().slowReaders.closeSeconds)
  /// TLS certificate and key (PEM); both or neither (`--tls-cert`, `--tls-key`).
  public var tlsCertificatePath: String?
  public var tlsPrivateKeyPath: String?
  /// Keepalive: ping after this many idle seconds (`--ping-interval`).
  public var pingIntervalSeconds = TransportConfiguration().pingIntervalSeconds
  /// Keepalive: drop after this many seconds of silence (`--idle-timeout`).
  public var idleTimeoutSeconds = TransportConfiguration().idleTimeoutSeconds
  /// How the service thread waits for events (`--event-loop`): `libev` or `poll`.
  public var eventLoop = TransportConfiguration().eventLoop.rawValue
  /// Presence rate under load (`--presence-hz`).
  public var presenceHz = 30
  /// Presence rate of a lightly loaded server (`--presence-max-hz`): by default 1,000, so a light
  /// server relays a drag at once and a loaded one slows towards `presenceHz`; at or below
  /// `presenceHz` the rate is fixed at `presenceHz`.
  public var presenceMaxHz = 1_000
  /// Server-wide budget of `drags` frames per second that slows presence from `presenceMaxHz`
  /// towards `presenceHz` as connections grow (`--presence-budget`).
  public var presenceBudget = 40_000
  /// Create the demo boards if absent (`--demo`).
  public var demo = false
  /// Ops per second per connection, token bucket rate (`--max-ops-per-second`); burst is twice this.
  public var maxOpsPerSecond = RoomLimits().maxOpsPerSecond
  /// Broadcasts per second per connection (`--max-broadcasts-per-second`); burst is twice this.
  public var maxBroadcastsPerSecond = RoomLimits().maxBroadcastsPerSecond
  /// Live + deleted items per room (`--max-items-per-room`).
  public var maxItemsPerRoom = RoomLimits().maxItemsPerRoom
  /// Lists per room (`--max-lists-per-room`).
  public var maxListsPerRoom = RoomLimits().maxListsPerRoom
  /// Rooms loaded at once (`--max-rooms`).
  public var maxRooms = RoomLimits().maxRooms
  /// Connections per room (`--max-connections-per-room`).
  public var maxConnectionsPerRoom = RoomLimits().maxConnectionsPerRoom
  /// Seconds a room stays loaded after its last connection left (`--room-idle-seconds`).
  public var roomIdleSeconds = Int(RoomLimits().roomIdleSeconds)
  /// Seconds a drain spreads its 1012 closes over (`--drain-seconds`).
  public var drainSeconds = 10
  /// The catch-up window, in ops (`--history-ops`): a `since` at most this far behind gets the ops
  /// it missed, older ones the full board; the log keeps this many ops (and at least the
  /// idempotency window) before each room's latest snapshot, older ones are deleted.
  public var historyOps = 10_000
  /// Write a snapshot every this many ops (`--snapshot-every`).
  public var snapshotEvery = RoomLimits().snapshotEvery
  /// Origins whose pages may connect, comma separated (`--allowed-origins`); empty: this server's
  /// own origin and its loopback ones (`OriginPolicy`).
  public var allowedOrigins = ""
  /// Concurrent websockets per client address (`--max-connections-per-ip`).
  public var maxConnectionsPerIP = 256
  /// Websocket handshakes per second per client address, bursts of four times this
  /// (`--max-handshakes-per-ip`).
  public var maxHandshakesPerIP = 50
  /// Proxies whose `X-Forwarded-For` names the client, comma-separated CIDRs (`--trust-proxy`).
  public var trustProxy = ""
  /// HS256 secret file: tokens are checked (`--auth-secret-file`; see docs/AUTH.md).
  public var authSecretFile: String?
  /// PEM public key (ES256 or RS256): tokens are checked (`--auth-public-key`).
  public var authPublicKey: String?
  /// JWK Set (RFC 7517) of the keys tokens are signed with, a token's `kid` picking its key: tokens
  /// are checked (`--auth-jwks-file`; instead of the two above).
  public var authJWKSFile: String?
  /// The `aud` tokens must carry (`--auth-audience`).
  public var authAudience: String?
  /// The `iss` tokens must carry (`--auth-issuer`).
  public var authIssuer: String?
  /// Keys of the HTTP API, one per line (`--api-key-file`); without it `/api/v1` answers 404.
  public var apiKeyFile: String?
  /// HTTP API requests per second per key, bursts of twice this; more get 429
  /// (`--api-requests-per-second`).
  public var apiRequestsPerSecond = 200
  /// Where signed webhooks are POSTed, `http://…` or `https://…` (`--webhook-url`; needs
  /// `webhookSecretFile`; docs/WEBHOOKS.md).
  public var webhookURL: String?
  /// The Standard Webhooks secret (`whsec_…`) webhooks are signed with (`--webhook-secret-file`).
  public var webhookSecretFile: String?
  /// When webhooks go out (debounce, retries, queue bound): not a flag; tests shrink it.
  var webhookTiming = WebhookTiming()
  /// `HOST:PORT` to serve `/metrics` on instead of the main port (`--metrics-listen`); nil: the
  /// main port serves it.
  public var metricsListen: String?
  /// `/metrics` wants `Authorization: Bearer <API key>` (`--metrics-auth`; needs `apiKeyFile`).
  public var metricsAuth = false
  /// Serve anyone who can reach a non-loopback address without tokens (`--allow-anonymous`).
  public var allowAnonymous = false
  /// Cluster mode: the Redis that every node shares rooms through, `redis://HOST:PORT[/DB]`
  /// (`--redis`; docs/CLUSTER.md); nil: one node, rooms in SQLite.
  public var redis: String?
  /// Cluster mode over a Redis Cluster: its seed nodes, `redis://HOST:PORT` separated by commas
  /// (`--redis-cluster`; excludes `redis`).
  public var redisCluster: String?
  /// Acknowledge an op only once this many Redis replicas have it (`--redis-wait-replicas`, `WAIT`
  /// after each round trip of appends); 0: once the master has it.
  public var redisWaitReplicas = 0
  /// The ACL user of `AUTH user password` (`--redis-user`; needs `redisPasswordFile`).
  public var redisUser: String?
  /// The file holding the Redis password (`--redis-password-file`; needs `redis` or
  /// `redisCluster`).
  public var redisPasswordFile: String?
  /// The rooms' compaction interval: part of a cluster's stored format, so not a flag (always
  /// `RoomNode.compactionInterval` in `reorder serve`); tests set smaller ones.
  var compactEvery = RoomNode.compactionInterval
  /// `error`, `warn`, `info`, `debug` (`--log-level`).
  public var logLevel = "info"
  /// `text` or `json` (`--log-format`).
  public var logFormat = "text"

  /// The embedded defaults.
  public init() {}
}
