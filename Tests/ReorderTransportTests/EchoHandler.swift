import Foundation
import ReorderTransport

/// A tiny handler for transport tests: echoes every message back, except `broadcast:<text>`, which
/// goes to everyone in the sender's room. Records what happened for assertions (thread safe).
final class EchoHandler: WebSocketServerHandler, @unchecked Sendable {
  private let lock = NSLock()
  private var _opened: [ConnectionID: String] = [:]
  private var _closed: [ConnectionID] = []
  private var _received: [(ConnectionID, [UInt8])] = []
  private var _ticks = 0
  private var _binaryCount = 0
  /// Set once the server exists (service thread reads it); weak: the server owns its handler.
  weak var server: WebSocketServer?

  private func locked<T>(_ body: () -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body()
  }

  var opened: [ConnectionID: String] { locked { _opened } }
  var closed: [ConnectionID] { locked { _closed } }
  var received: [(ConnectionID, [UInt8])] { locked { _received } }
  var ticks: Int { locked { _ticks } }
  var binaryCount: Int { locked { _binaryCount } }

  func connectionOpened(_ connection: ConnectionID, room: String) {
    locked { _opened[connection] = room }
  }

  func connectionReceived(_ connection: ConnectionID, message: [UInt8], isBinary: Bool) {
    locked {
      _received.append((connection, message))
      if isBinary { _binaryCount += 1 }
    }
    if isBinary { return }
    let text = String(decoding: message, as: UTF8.self)
    if text.hasPrefix("broadcast:") {
      let room = locked { _opened[connection] }
      let peers = locked { _opened.filter { $0.value == room && !_closed.contains($0.key) }.map(\.key) }
      for peer in peers { server?.send(Array(text.utf8.dropFirst(10)), to: peer) }
    } else {
      server?.send(message, to: connection)
    }
  }

  func connectionClosed(_ connection: ConnectionID) {
    locked { _closed.append(connection) }
  }

  func transportTick() {
    locked { _ticks += 1 }
  }

  func healthFields() -> [String: Int] {
    ["rooms": locked { Set(_opened.filter { !_closed.contains($0.key) }.values).count }]
  }

  /// Service thread: every connection currently open in `room`.
  func connections(in room: String) -> [ConnectionID] {
    locked { _opened.filter { $0.value == room && !_closed.contains($0.key) }.map(\.key) }
  }
}
