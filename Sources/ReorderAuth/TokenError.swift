/// Why a token was refused: a stable machine reason and a message for the person holding it.
///
/// The server sends `message` in `error unauthorized` (or `error forbidden`), closes with
/// `closeCode`, and counts refusals by `reason.rawValue` in its metrics. Messages never echo the
/// token or a claim's value back.
public struct TokenError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The stable machine-readable reasons (documented in docs/AUTH.md; never renamed).
  public enum Reason: String, CaseIterable, Sendable {
    /// No token, or an empty one.
    case missing
    /// Longer than `TokenVerifier.maxTokenBytes`.
    case tooLarge = "too_large"
    /// Not three base64url parts of JSON objects, or a header libjwt refuses (`typ` not JWT).
    case malformed
    /// `alg` is `none`, or not the one algorithm the configured key (the one `kid` picks) allows.
    case unsupportedAlgorithm = "unsupported_algorithm"
    /// No `kid` in the header, and the server has several keys (a JWK Set): `kid` picks one.
    case missingKeyID = "missing_kid"
    /// The header's `kid` names none of the server's keys (a key removed, or another issuer's).
    case unknownKeyID = "unknown_kid"
    /// The header has `crit`: no JWS extension is understood here.
    case critHeader = "crit_header"
    /// The signature does not match the header and claims.
    case badSignature = "bad_signature"
    /// `exp` plus the leeway is in the past.
    case expired
    /// `nbf` minus the leeway is in the future.
    case notYetValid = "not_yet_valid"
    /// `aud` does not name the configured audience.
    case wrongAudience = "wrong_audience"
    /// `iss` is not the configured issuer.
    case wrongIssuer = "wrong_issuer"
    /// `sub`, `room`, `role` or `exp` is absent (or an empty string).
    case missingClaim = "missing_claim"
    /// A claim has the wrong JSON type, or `room` is not a room name, prefix or `*`.
    case invalidClaim = "invalid_claim"
    /// `role` is neither `editor` nor `viewer`.
    case unknownRole = "unknown_role"
    /// A valid token whose `room` claim does not cover the room asked for.
    case forbidden
    /// A valid refresh token for another `sub` than the connection's.
    case subjectMismatch = "subject_mismatch"
  }

  /// The machine reason.
  public let reason: Reason
  /// One sentence saying what is wrong, without the token's own content.
  public let message: String

  /// Makes an error; `message` should say which check failed and what to do.
  public init(_ reason: Reason, _ message: String) {
    self.reason = reason
    self.message = message
  }

  /// The websocket close code that follows a refused `hello`: 4403 for `forbidden`, 4401 for
  /// everything else. (A refused `refresh` closes nothing: the old token's rights stay.)
  public var closeCode: UInt16 { reason == .forbidden ? 4403 : 4401 }

  /// `reason: message`.
  public var description: String { "\(reason.rawValue): \(message)" }
}
