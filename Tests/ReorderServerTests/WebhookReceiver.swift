import Foundation
import TestSupport

/// A webhook receiver in a child Python process on 127.0.0.1 that checks every Standard Webhooks
/// signature with the secret (Python's own `hmac`, not the code under test). It answers 400 to a
/// bad signature, 503 to the first `fail` good deliveries and 204 to the rest; with `hang` it
/// never answers. It stops by itself after 120 s; `stop()` kills it by PID.
final class WebhookReceiver {
  /// One request as the receiver saw it.
  struct Delivery {
    let id: String
    let timestamp: Int
    let signatureOK: Bool
    let status: Int
    let body: [String: Any]
  }

  let process: ChildProcess
  let port: Int

  init(secret: String, fail: Int = 0, hang: Bool = false) throws {
    process = try ChildProcess(
      executable: "/usr/bin/env",
      arguments: ["python3", "-c", Self.script, secret, "--fail", String(fail)] + (hang ? ["--hang"] : []))
    guard let line = process.waitForLine(where: { $0.hasPrefix("listening ") }),
      let port = Int(line.dropFirst("listening ".count))
    else {
      process.terminate()
      throw ReceiverError.didNotStart(process.output.joined(separator: "\n"))
    }
    self.port = port
  }

  enum ReceiverError: Error { case didNotStart(String) }

  var url: String { "http://127.0.0.1:\(port)/hooks" }

  /// The requests so far, in arrival order.
  var deliveries: [Delivery] {
    process.output.filter { $0.hasPrefix("{") }.compactMap { line in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let body = (object["body"] as? String).flatMap({
          try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        })
      else { return nil }
      return Delivery(
        id: object["id"] as? String ?? "", timestamp: Int(object["timestamp"] as? String ?? "") ?? 0,
        signatureOK: object["signature_ok"] as? Bool ?? false, status: object["status"] as? Int ?? 0, body: body)
    }
  }

  func stop() { process.terminate() }

  static let script = #"""
    import base64, hashlib, hmac, json, sys, threading, time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    secret = sys.argv[1]
    fail = int(sys.argv[sys.argv.index("--fail") + 1])
    hang = "--hang" in sys.argv
    key = base64.b64decode(secret[len("whsec_"):])
    lock = threading.Lock()
    good = 0

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            global good
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            if hang:
                time.sleep(60)
                return
            wid = self.headers.get("webhook-id", "")
            stamp = self.headers.get("webhook-timestamp", "")
            signed = f"{wid}.{stamp}.".encode() + body
            expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
            ok = any(hmac.compare_digest(expected, s) for s in self.headers.get("webhook-signature", "").split(" "))
            with lock:
                if not ok:
                    status = 400
                else:
                    status = 503 if good < fail else 204
                    good += 1
                print(json.dumps({"id": wid, "timestamp": stamp, "signature_ok": ok, "status": status,
                                  "body": body.decode()}), flush=True)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Timer(120, server.shutdown).start()
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
    """#
}
