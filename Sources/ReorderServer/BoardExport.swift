import Dispatch
import ReorderAPI
import ReorderLocal
import ReorderRooms
import ReorderStore

/// `reorder export`: a board read straight from a data directory (a server may be running on
/// it: reads never wait for its writer), as `{"room","seq","epoch","board"}` (`board` as in
/// `welcome.board`).
public enum BoardExport {
  /// Why an export failed.
  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  /// The JSON of `room` in `dataDirectory`.
  public static func json(dataDirectory: String, room: String) throws -> String {
    guard case .success(let name) = RoomPath.validate(Array(room.utf8)) else {
      throw Failure(description: "'\(room)' is not a room name (1-64 of A-Z a-z 0-9 - _ .)")
    }
    let store: Store
    do {
      store = try Store(path: dataDirectory)
    } catch {
      throw Failure(description: "\(error)")
    }
    defer { store.close() }
    guard (try? store.roomNames())?.contains(name) == true else {
      throw Failure(description: "no board named '\(name)' in \(dataDirectory)")
    }
    let answer = Answer<Result<PreparedRoom, RoomStoreError>>()
    RoomLoad(room: name, boards: CRDTRoomBoard.factory).run(on: StoreRoomStorage(store: store)) { answer.set($0) }
    switch answer.wait(timeoutSeconds: 600) ?? .failure(.unavailable("no answer from the store")) {
    case .success(let prepared):
      return JSONValue.object([
        ("room", .string(name)), ("seq", .number(Double(prepared.seq))), ("epoch", .string(prepared.epoch)),
        ("board", prepared.boardJSON()),
      ]).jsonText
    case .failure(let error):
      throw Failure(description: "the board could not be read: \(error)")
    }
  }
}

/// Operations on a data directory as a whole.
public enum DataDirectory {
  /// `reorder backup`: see `Store.backup(directory:to:)`.
  public static func backup(_ directory: String, to file: String) throws {
    do {
      try Store.backup(directory: directory, to: file)
    } catch {
      throw BoardExport.Failure(description: "\(error)")
    }
  }
}
