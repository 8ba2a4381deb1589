/// A token lifetime as typed on the command line: a whole number and a unit, `90s`, `15m`,
/// `1h` or `7d`.
public enum TokenLifetime {
  /// Longest lifetime accepted: a year (a share link should not live forever).
  public static let maxSeconds: Int64 = 366 * 86_400

  /// Seconds in `text`; nil when it is not a positive number with `s`, `m`, `h` or `d`, or over a year.
  public static func seconds(_ text: String) -> Int64? {
    guard let unit = text.last, let count = Int64(text.dropLast()), count > 0, text.first != "+" else { return nil }
    let scale: Int64
    switch unit {
    case "s": scale = 1
    case "m": scale = 60
    case "h": scale = 3_600
    case "d": scale = 86_400
    default: return nil
    }
    let (seconds, overflow) = count.multipliedReportingOverflow(by: scale)
    guard !overflow, seconds <= maxSeconds else { return nil }
    return seconds
  }
}
