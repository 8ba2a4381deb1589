/// Checks a fuzz target's contract: on failure, prints what broke and traps, which libFuzzer
/// reports as a crash and saves the input (`crash-<sha1>`).
///
/// Unlike `precondition`, it also traps in release builds with `-Ounchecked`, and it names the
/// broken rule in the crash log.
public func fuzzCheck(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
  line: UInt = #line
) {
  if !condition() {
    print("fuzz contract broken at \(file):\(line): \(message())")
    fatalError("fuzz contract broken: \(message())", file: file, line: line)
  }
}

/// The bytes libFuzzer hands the callback, as an array.
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
  guard let data, size > 0 else { return [] }
  return Array(UnsafeBufferPointer(start: data, count: size))
}
