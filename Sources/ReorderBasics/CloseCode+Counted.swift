extension CloseCode {
  /// The code counted for a connection that closed without a close frame from either side (lost);
  /// never sent (RFC 6455 section 7.1.5).
  public static let lost: UInt16 = 1006

  /// The codes a close is known in advance to be counted under (`reorder_disconnects_total{code}`):
  /// every code of this table and `lost`. A client may close with any other code; that one is
  /// counted too, from its first close.
  public static let counted: [UInt16] = [
    normal, goingAway, lost, policyViolation, messageTooBig, internalError, serviceRestart, tryAgainLater,
    slowReader, accessChanged, unsupportedVersion, unauthorized, forbidden, boardDeleted, helloTimeout,
  ]
}
