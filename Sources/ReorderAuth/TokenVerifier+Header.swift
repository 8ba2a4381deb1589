import Foundation

extension TokenVerifier {
  /// Checks the JOSE header before any signature work, where libjwt 1.10 checks too little:
  /// `alg` must be exactly the key's algorithm (so neither `none` nor an HS256 token against a
  /// public key nor the reverse gets through), `crit` must be absent (no extension is
  /// understood, RFC 7515 §4.1.11), and `typ`, if any, must be `JWT` (libjwt refuses others).
  ///
  /// - Returns: nil when the header is acceptable, else the refusal.
  func checkHeader(_ encoded: ArraySlice<UInt8>) -> TokenError? {
    guard !encoded.isEmpty, let json = Base64URL.decode(encoded) else {
      return TokenError(.malformed, "the header part is not base64url")
    }
    guard let header = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
      return TokenError(.malformed, "the header is not a JSON object")
    }
    let expected = key.algorithm.rawValue
    guard let algorithm = header["alg"] as? String else {
      return TokenError(.unsupportedAlgorithm, "the header names no alg; this server accepts \(expected) tokens")
    }
    if algorithm.lowercased() == "none" {
      return TokenError(.unsupportedAlgorithm, "alg none (an unsigned token) is never accepted")
    }
    if algorithm != expected {
      let named = Self.knownAlgorithms.contains(algorithm) ? algorithm : "an unknown alg"
      return TokenError(.unsupportedAlgorithm, "this server accepts \(expected) tokens only, not \(named)")
    }
    if header["crit"] != nil {
      return TokenError(.critHeader, "the header has crit: no JWS extension is supported")
    }
    if let type = header["typ"], (type as? String)?.uppercased() != "JWT" {
      return TokenError(.malformed, "the header's typ must be JWT")
    }
    return nil
  }

  /// JWA signature names (RFC 7518 §3.1), echoed in messages; anything else is not echoed.
  static let knownAlgorithms: Set<String> = [
    "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA",
  ]
}
