import Foundation
import TestSupport

/// Key files made once per test run with the `openssl` CLI in a temporary directory.
struct TestKeys: Sendable {
  let directory: String
  /// An HS256 secret of 40 bytes and its file (with a trailing newline, as `echo` writes it).
  let secret: [UInt8]
  let secretFile: String
  let ecPrivate: String
  let ecPublic: String
  let otherECPrivate: String
  let rsaPrivate: String
  let rsaPublic: String
  let ecP384Public: String
  let rsa1024Public: String

  static let shared: TestKeys = {
    do { return try TestKeys() } catch { fatalError("cannot make test keys with openssl: \(error)") }
  }()

  private init() throws {
    let directory = NSTemporaryDirectory() + "reorder-auth-tests-\(getpid())"
    self.directory = directory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    secret = Array("0123456789abcdef0123456789abcdef-secret".utf8)
    secretFile = directory + "/secret"
    try Data(secret + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: secretFile))
    func path(_ name: String) -> String { directory + "/" + name }
    ecPrivate = path("ec.pem")
    ecPublic = path("ec.pub.pem")
    otherECPrivate = path("ec-other.pem")
    rsaPrivate = path("rsa.pem")
    rsaPublic = path("rsa.pub.pem")
    ecP384Public = path("ec384.pub.pem")
    rsa1024Public = path("rsa1024.pub.pem")
    let ec = ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out"]
    try OpenSSLKeys.run(ec + [ecPrivate])
    try OpenSSLKeys.run(ec + [otherECPrivate])
    try OpenSSLKeys.run(["pkey", "-in", ecPrivate, "-pubout", "-out", ecPublic])
    try OpenSSLKeys.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsaPrivate])
    try OpenSSLKeys.run(["pkey", "-in", rsaPrivate, "-pubout", "-out", rsaPublic])
    let ec384 = path("ec384.pem")
    try OpenSSLKeys.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", ec384])
    try OpenSSLKeys.run(["pkey", "-in", ec384, "-pubout", "-out", ecP384Public])
    let rsa1024 = path("rsa1024.pem")
    try OpenSSLKeys.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", rsa1024])
    try OpenSSLKeys.run(["pkey", "-in", rsa1024, "-pubout", "-out", rsa1024Public])
  }

  /// The bytes of a file made here.
  func contents(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path) ?? Data()) }
}
