/// A configuration that cannot work, with the flags to fix. `reorder` exits with status 2 on one.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
  /// What is wrong and what to do about it.
  public let description: String

  /// An error saying `description`.
  public init(_ description: String) { self.description = description }
}
