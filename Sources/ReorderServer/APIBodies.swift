import ReorderRooms

/// Request bodies of the API's writes, decoded into what the rooms take, or into the problem
/// (400 not a JSON object, 413 too many ops, 422 the wrong shape). Pure.
enum APIBodies {
  /// The body as a JSON object.
  static func object(_ body: [UInt8]) -> Result<JSONValue, APIRoutes.Problem> {
    guard let value = try? JSONValue.parse(body), case .object = value else { return .failure(notAnObject) }
    return .success(value)
  }

  static let notAnObject = APIRoutes.Problem(400, "bad request", "the body must be a JSON object")

  /// A board's content that is not a valid board: 422 with the protocol's `code` and where (`at`).
  static func invalid(_ refusal: BoardContent.Refusal) -> APIRoutes.Problem {
    APIRoutes.Problem(
      422, "unprocessable", refusal.detail,
      extensions: [("code", .string(refusal.error.code.rawValue)), ("at", .string(refusal.path))])
  }

  /// `{"ops":[{"id","op"}]}`: at most `APIRoutes.maxOpsPerRequest` ops (413), each with an id
  /// (422 without one, or with no `op` object). An `op` that does not decode is not a problem of
  /// the request: it becomes that op's `rejected` result, as over the websocket.
  static func ops(_ body: [UInt8]) -> Result<[(id: String, intent: Result<Intent, ProtocolError>)], APIRoutes.Problem> {
    object(body).flatMap { value in
      guard case .array(let elements)? = value["ops"] else {
        return .failure(APIRoutes.Problem(422, "unprocessable", "ops must be an array of {\"id\",\"op\"}"))
      }
      guard elements.count <= APIRoutes.maxOpsPerRequest else {
        return .failure(
          APIRoutes.Problem(
            413, "too many ops", "at most \(APIRoutes.maxOpsPerRequest) ops per request; split them"))
      }
      var ops: [(id: String, intent: Result<Intent, ProtocolError>)] = []
      ops.reserveCapacity(elements.count)
      for (index, element) in elements.enumerated() {
        guard case .string(let id)? = element["id"], !id.isEmpty, id.utf8.count <= 128 else {
          return .failure(
            APIRoutes.Problem(422, "unprocessable", "ops[\(index)].id must be a string of 1 to 128 bytes"))
        }
        guard case .object? = element["op"] else {
          return .failure(APIRoutes.Problem(422, "unprocessable", "ops[\(index)].op must be an object"))
        }
        ops.append((id, Result { () throws(ProtocolError) in try Intent.decode(element["op"]!) }))
      }
      return .success(ops)
    }
  }
}
