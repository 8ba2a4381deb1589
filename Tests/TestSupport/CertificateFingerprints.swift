import Foundation

/// The SHA-256 fingerprint line (`sha256 Fingerprint=…`) of a PEM certificate file (`openssl x509`).
public func certificateFingerprint(ofFile path: String) throws -> String {
  try fingerprintLine("openssl x509 -in '\(path)' -noout -fingerprint -sha256")
}

/// The same for the certificate that a new TLS handshake with 127.0.0.1:`port` is shown
/// (`openssl s_client`), so that a test sees what a client connecting now gets.
public func presentedCertificateFingerprint(port: Int) throws -> String {
  try fingerprintLine(
    "openssl s_client -connect 127.0.0.1:\(port) -servername localhost </dev/null 2>/dev/null"
      + " | openssl x509 -noout -fingerprint -sha256")
}

/// Runs `command` with `sh` (at most 10 s) and returns its output line, which must hold a
/// fingerprint.
private func fingerprintLine(_ command: String) throws -> String {
  let process = Process()
  let output = Pipe()
  process.executableURL = URL(fileURLWithPath: "/bin/sh")
  process.arguments = ["-c", "timeout 10 sh -c \"$0\"", command]
  process.standardOutput = output
  process.standardError = FileHandle.nullDevice
  try process.run()
  let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
  guard process.terminationStatus == 0, line.contains("Fingerprint=") else {
    throw RawSocketError.failed("'\(command)' gave '\(line)'")
  }
  return line
}
