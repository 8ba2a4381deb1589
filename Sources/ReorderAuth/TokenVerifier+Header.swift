import Foundation

extension TokenVerifier {
  /// Checks the JOSE header before any signature work, where libjwt 1.10 checks too little, and
  /// picks the key: `alg` must be exactly the picked key's algorithm (so neither `none` nor an
  /// HS256 token against a public key nor the reverse gets through), `crit` must be absent (no
  /// extension is understood, RFC 7515 §4.1.11), and `typ`, if any, must be `JWT` (libjwt refuses
  /// others). The key: the only one when it has no `kid` (a token's `kid` is then not looked at);
  /// else the one the token's `kid` names, which may be left out only when there is one key.
  ///
  /// - Returns: the index in `keys` of the key to verify with, else the refusal (whose message
  ///   never echoes the header's values).
  func checkHeader(_ encoded: ArraySlice<UInt8>) -> Result<Int, TokenError> {
    guard !encoded.isEmpty, let json = Base64URL.decode(encoded) else {
      return .failure(TokenError(.malformed, "the header part is not base64url"))
    }
    guard let header = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
      return .failure(TokenError(.malformed, "the header is not a JSON object"))
    }
    let accepted = Set(keys.map(\.algorithm.rawValue)).sorted().joined(separator: " or ")
    guard let algorithm = header["alg"] as? String else {
      return .failure(
        TokenError(.unsupportedAlgorithm, "the header names no alg; this server accepts \(accepted) tokens"))
    }
    if algorithm.lowercased() == "none" {
      return .failure(TokenError(.unsupportedAlgorithm, "alg none (an unsigned token) is never accepted"))
    }
    let index: Int
    switch pickKey(header["kid"]) {
    case .success(let picked): index = picked
    case .failure(let refusal): return .failure(refusal)
    }
    let expected = keys[index].algorithm.rawValue
    if algorithm != expected {
      let named = Self.knownAlgorithms.contains(algorithm) ? algorithm : "an unknown alg"
      let holder = keys.count == 1 ? "this server" : "the key the token's kid names"
      return .failure(TokenError(.unsupportedAlgorithm, "\(holder) accepts \(expected) tokens only, not \(named)"))
    }
    if header["crit"] != nil {
      return .failure(TokenError(.critHeader, "the header has crit: no JWS extension is supported"))
    }
    if let type = header["typ"], (type as? String)?.uppercased() != "JWT" {
      return .failure(TokenError(.malformed, "the header's typ must be JWT"))
    }
    return .success(index)
  }

  /// The key a header's `kid` (nil: none) picks.
  private func pickKey(_ kid: Any?) -> Result<Int, TokenError> {
    if keys.count == 1 && keys[0].keyID == nil { return .success(0) }
    guard let kid else {
      return keys.count == 1
        ? .success(0)
        : .failure(
          TokenError(
            .missingKeyID, "the header names no kid; this server has several keys, and a token's kid picks one"))
    }
    guard let name = kid as? String else {
      return .failure(TokenError(.malformed, "the header's kid must be a string"))
    }
    guard let index = keys.firstIndex(where: { $0.keyID == name }) else {
      return .failure(TokenError(.unknownKeyID, "the header's kid names none of this server's keys"))
    }
    return .success(index)
  }

  /// The encoded headers that skip the parse, each with the index of the key it picks: for a key
  /// without `kid`, `{"alg":A,"typ":"JWT"}`, `{"typ":"JWT","alg":A}` and `{"alg":A}`; for a key
  /// with one, those with `"kid":K` in each place (and without it, when it is the only key).
  static func commonHeaders(_ keys: [JSONWebKey]) -> [[UInt8]: Int] {
    var headers: [[UInt8]: Int] = [:]
    func add(_ members: [String], _ index: Int) {
      let text = "{" + members.joined(separator: ",") + "}"
      headers[Array(Base64URL.encode(Array(text.utf8)).utf8)] = index
    }
    for (index, key) in keys.enumerated() {
      let alg = #""alg":"\#(key.algorithm.rawValue)""#
      let typ = #""typ":"JWT""#
      if key.keyID == nil || keys.count == 1 {
        add([alg, typ], index)
        add([typ, alg], index)
        add([alg], index)
      }
      // A kid that JSON writes as it is (no quote, backslash or control character to escape).
      guard let keyID = key.keyID,
        !keyID.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" || $0.value < 0x20 })
      else { continue }
      let kid = #""kid":"\#(keyID)""#
      for order in [
        [alg, kid, typ], [alg, typ, kid], [kid, alg, typ], [kid, typ, alg], [typ, alg, kid], [typ, kid, alg],
      ] {
        add(order, index)
      }
      add([alg, kid], index)
      add([kid, alg], index)
    }
    return headers
  }

  /// JWA signature names (RFC 7518 §3.1), echoed in messages; anything else is not echoed.
  static let knownAlgorithms: Set<String> = [
    "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA",
  ]
}
