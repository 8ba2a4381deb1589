import ReorderAuth
import ReorderRooms

/// The rooms' `AccessVerifier` over `ReorderAuth.TokenVerifier`: a token's claims become the
/// connection's `Access`; a refusal keeps its reason (for metrics) and message.
struct TokenAccess: AccessVerifier {
  let verifier: TokenVerifier

  func verify(token: String, room: String) -> Result<Access, AccessDenial> {
    verifier.verify(token: token, forRoom: room).map(access).mapError(denial)
  }

  func verifyRefresh(token: String, current: Access, room: String) -> Result<Access, AccessDenial> {
    verify(token: token, room: room).flatMap { access in
      access.subject == current.subject
        ? .success(access)
        : .failure(
          AccessDenial(
            forbidden: false, reason: TokenError.Reason.subjectMismatch.rawValue,
            message: "a refresh must be for the same sub as the connection's token"))
    }
  }

  private func access(_ claims: TokenClaims) -> Access {
    Access(
      subject: claims.subject, role: claims.role == .viewer ? .viewer : .editor, name: claims.name,
      color: claims.color, presence: claims.presence, broadcast: claims.broadcast,
      // Unclamped: negative for a token past its exp but within the leeway, so the close falls
      // at exp plus the leeway (the verifier's), not a leeway after the join.
      expiresIn: Double(claims.expiresAt - verifier.now()), leeway: Double(verifier.leewaySeconds))
  }

  private func denial(_ error: TokenError) -> AccessDenial {
    AccessDenial(forbidden: error.reason == .forbidden, reason: error.reason.rawValue, message: error.message)
  }
}
