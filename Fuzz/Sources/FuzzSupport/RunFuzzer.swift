import CFuzzer

/// The body of the running target (one per process: `runFuzzer` is called once, from main).
nonisolated(unsafe) private var fuzzBody: ([UInt8]) -> Void = { _ in }

/// Runs libFuzzer with this process's command line over `body`, which gets each input and checks
/// the decoder's contract with `fuzzCheck` (any trap is a finding). Returns libFuzzer's exit status.
public func runFuzzer(_ body: @escaping ([UInt8]) -> Void) -> Never {
  fuzzBody = body
  var argc = CommandLine.argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
  let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    fuzzBody(fuzzBytes(data, size))
    return 0
  }
  exit(status)
}

@_silgen_name("exit") private func exit(_ status: CInt) -> Never
