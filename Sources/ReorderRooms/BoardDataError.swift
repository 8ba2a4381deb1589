/// A logged op or snapshot that cannot be read back.
public struct BoardDataError: Error, Equatable, Sendable {
  /// What is wrong.
  public var message: String
  /// An error with a message.
  public init(_ message: String) { self.message = message }
}
