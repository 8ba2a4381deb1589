import Foundation

extension TokenVerifier {
  /// Reads and checks the claims of a token whose signature libjwt verified: required claims
  /// and their types, the times with leeway, the issuer and audience, then the role.
  func claims(of token: DecodedJWT) -> Result<TokenClaims, TokenError> {
    do {
      let subject = try requiredString(token, "sub")
      let roomClaim = try requiredString(token, "room")
      guard let room = RoomScope(claim: roomClaim) else {
        throw TokenError(.invalidClaim, "room must be a room name, a prefix ending in *, or *")
      }
      let roleClaim = try requiredString(token, "role")
      guard let expiresAt = try number(token, "exp") else {
        throw TokenError(.missingClaim, "the token has no exp (expiry): every token must expire")
      }
      let notBefore = try number(token, "nbf")
      let issuedAt = try number(token, "iat")
      guard subject.utf8.count <= TokenClaims.maxSubjectBytes else {
        throw TokenError(.invalidClaim, "sub must be at most \(TokenClaims.maxSubjectBytes) bytes")
      }
      let name = try optionalString(token, "name")
      if let name, name.isEmpty || name.utf8.count > TokenClaims.maxNameBytes {
        throw TokenError(.invalidClaim, "name must be 1-\(TokenClaims.maxNameBytes) bytes")
      }
      let color = try optionalString(token, "color")
      if let color, !TokenClaims.isValidColor(color) {
        throw TokenError(.invalidClaim, "color must be a CSS colour such as #e91e63 (at most 32 bytes)")
      }
      let presence = try bool(token, "presence") ?? true
      let broadcast = try bool(token, "broadcast") ?? true
      let current = now()
      if expiresAt + leewaySeconds < current {
        throw TokenError(.expired, "the token expired \(current - expiresAt) s ago; ask for a new one")
      }
      if let notBefore, notBefore - leewaySeconds > current {
        throw TokenError(.notYetValid, "the token is valid only in \(notBefore - current) s (nbf)")
      }
      try checkIssuer(token)
      try checkAudience(token)
      guard let role = TokenClaims.Role(rawValue: roleClaim) else {
        throw TokenError(.unknownRole, "role must be editor or viewer")
      }
      return .success(
        TokenClaims(
          subject: subject, room: room, role: role, expiresAt: expiresAt, notBefore: notBefore, issuedAt: issuedAt,
          name: name, color: color, presence: presence, broadcast: broadcast))
    } catch let error as TokenError {
      return .failure(error)
    } catch {
      preconditionFailure("claims(of:) throws TokenError only")
    }
  }

  private func checkIssuer(_ token: DecodedJWT) throws(TokenError) {
    guard let issuer else { return }
    guard token.string("iss") == issuer else {
      throw TokenError(.wrongIssuer, "the token's iss is not the issuer this server trusts")
    }
  }

  /// `aud` is a string or an array of strings (RFC 7519 §4.1.3); it must name the audience.
  private func checkAudience(_ token: DecodedJWT) throws(TokenError) {
    guard let audience else { return }
    let named: [String]
    if let single = token.string("aud") {
      named = [single]
    } else if let json = token.json("aud"), let list = try? JSONSerialization.jsonObject(with: Data(json.utf8)) {
      named = (list as? [Any])?.compactMap { $0 as? String } ?? []
    } else {
      named = []
    }
    guard named.contains(audience) else {
      throw TokenError(.wrongAudience, "the token's aud does not name this server's audience")
    }
  }

  /// A required non-empty string claim.
  private func requiredString(_ token: DecodedJWT, _ claim: String) throws(TokenError) -> String {
    guard let value = try optionalString(token, claim), !value.isEmpty else {
      throw TokenError(.missingClaim, "the token has no \(claim)")
    }
    return value
  }

  private func optionalString(_ token: DecodedJWT, _ claim: String) throws(TokenError) -> String? {
    if let value = token.string(claim) { return value }
    if token.json(claim) != nil { throw TokenError(.invalidClaim, "\(claim) must be a string") }
    return nil
  }

  /// A NumericDate (RFC 7519 §2): a JSON number of seconds, fractions rounded down.
  private func number(_ token: DecodedJWT, _ claim: String) throws(TokenError) -> Int64? {
    guard let json = token.json(claim) else { return nil }
    guard let value = Double(json), value.isFinite, abs(value) < 1e15 else {
      throw TokenError(.invalidClaim, "\(claim) must be a number of Unix seconds")
    }
    return Int64(value.rounded(.down))
  }

  private func bool(_ token: DecodedJWT, _ claim: String) throws(TokenError) -> Bool? {
    switch token.json(claim) {
    case nil: return nil
    case "true": return true
    case "false": return false
    default: throw TokenError(.invalidClaim, "\(claim) must be true or false")
    }
  }
}
