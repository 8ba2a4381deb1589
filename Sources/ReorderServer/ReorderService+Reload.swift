import Dispatch
import ReorderAPI
import ReorderAuth
import ReorderBasics
import ReorderTransport
import ReorderWebhooks

extension ReorderService {
  /// SIGHUP: reads the files of the secrets again — the token key (`--auth-jwks-file`,
  /// `--auth-secret-file` or `--auth-public-key`), `--api-key-file`, `--webhook-secret-file`, and
  /// the TLS certificate and key — and puts them in use without closing any connection: joins,
  /// token refreshes, API requests, scrapes, webhook attempts and TLS handshakes from then on use
  /// the new material; open websockets stay as they are. All or nothing: when any file is
  /// unreadable or invalid nothing changes, and the log says why. Counted by result in
  /// `reorder_reloads_total`. Any thread but the service thread (it waits for it).
  /// - Returns: whether the new material is in use.
  @discardableResult
  public func reload() -> Bool {
    do throws(ReloadError) {
      let material = try ReloadedMaterial(configuration)
      if configuration.tlsCertificatePath != nil {
        do { try transport.reloadCertificate() } catch { throw ReloadError(error.description) }
      }
      apply(material)
      Log.log(.info, "reloaded", material.logFields)
      return true
    } catch {
      Log.log(.warn, "reload failed: kept the keys and certificate in use", ["error": error.description])
      count { $0.failed += 1 }
      return false
    }
  }

  /// Swaps `material` in: the token verifier and API keys on the service thread (where joins and
  /// requests read them), the scrape keys and the webhook secret behind their own locks.
  private func apply(_ material: ReloadedMaterial) {
    if configuration.metricsAuth { metricsEndpoint.keys.withLock { $0 = material.apiKeys } }
    if let secret = material.webhookSecret { webhooks?.replaceSecret(secret) }
    transport.postAndWait(timeoutSeconds: 5) { [driver] in
      driver.registry.accessVerifier = material.verifier.map { TokenAccess(verifier: $0) }
      driver.api.apiKeys = material.apiKeys
      driver.reloads.succeeded += 1
    }
  }

  private func count(_ change: @escaping @Sendable (inout ReloadStatistics) -> Void) {
    transport.post { [driver] in change(&driver.reloads) }
  }
}

/// Why a reload changed nothing.
struct ReloadError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// The secrets' files as read by one reload, all valid.
private struct ReloadedMaterial: Sendable {
  let verifier: TokenVerifier?
  let apiKeys: APIKeys?
  let webhookSecret: WebhookSecret?

  init(_ configuration: ServerConfiguration) throws(ReloadError) {
    do {
      verifier = try configuration.tokenVerifier
      apiKeys = try configuration.apiKeys
      webhookSecret = try configuration.webhookTarget?.secret
    } catch {
      throw ReloadError(error.description)
    }
  }

  /// What was reloaded, for the log line.
  var logFields: [String: String] {
    [
      "token_key": verifier == nil ? "none" : "reloaded", "api_keys": apiKeys == nil ? "none" : "reloaded",
      "webhook_secret": webhookSecret == nil ? "none" : "reloaded",
    ]
  }
}
