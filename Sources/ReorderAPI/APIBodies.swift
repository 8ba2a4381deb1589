import ReorderRooms

/// Request bodies of the API's writes, decoded into what the rooms take, or into the problem
/// (400 not a JSON object, 413 too many ops, 422 the wrong shape). Pure.
public enum APIBodies {
  /// The body as a JSON object.
  public static func object(_ body: [UInt8]) -> Result<JSONValue, APIRoutes.Problem> {
    guard let value = try? JSONValue.parse(body), case .object = value else { return .failure(notAnObject) }
    return .success(value)
  }

  /// 400: the body is not a JSON object.
  public static let notAnObject = APIRoutes.Problem(400, "bad request", "the body must be a JSON object")

  /// A board's content that is not a valid board: 422 with the protocol's `code` and where (`at`).
  public static func invalid(_ refusal: BoardContent.Refusal) -> APIRoutes.Problem {
    APIRoutes.Problem(
      422, "unprocessable", refusal.detail,
      extensions: [("code", .string(refusal.error.code.rawValue)), ("at", .string(refusal.path))])
  }

  /// `{"ops":[{"id","op"}]}`: at most `APIRoutes.maxOpsPerRequest` ops (413), each with an id
  /// (422 without one, or with no `op` object, with the protocol's `code` and `at`). An `op` that
  /// does not decode is not a problem of the request: it becomes that op's `rejected` result, as
  /// over the websocket.
  public static func ops(_ body: [UInt8]) -> Result<
    [(id: String, intent: Result<Intent, ProtocolError>)], APIRoutes.Problem
  > {
    object(body).flatMap { value in
      let elements: [JSONValue]
      switch value["ops"] {
      case .array(let array)?: elements = array
      case nil, .null?: return .failure(shape(.missingField, "ops", "ops must be an array of {\"id\",\"op\"}"))
      default: return .failure(shape(.wrongType, "ops", "ops must be an array of {\"id\",\"op\"}"))
      }
      guard elements.count <= APIRoutes.maxOpsPerRequest else {
        return .failure(
          APIRoutes.Problem(
            413, "too many ops", "at most \(APIRoutes.maxOpsPerRequest) ops per request; split them"))
      }
      var ops: [(id: String, intent: Result<Intent, ProtocolError>)] = []
      ops.reserveCapacity(elements.count)
      for (index, element) in elements.enumerated() {
        let at = "ops[\(index)]"
        let id: String
        switch element["id"] {
        case .string(let text)? where !text.isEmpty && text.utf8.count <= 128: id = text
        case .string?: return .failure(shape(.invalidValue, at + ".id", "\(at).id must be a string of 1 to 128 bytes"))
        case nil, .null?: return .failure(shape(.missingField, at + ".id", "\(at).id is required"))
        default: return .failure(shape(.wrongType, at + ".id", "\(at).id must be a string of 1 to 128 bytes"))
        }
        switch element["op"] {
        case .object?: break
        case nil, .null?: return .failure(shape(.missingField, at + ".op", "\(at).op is required"))
        default: return .failure(shape(.wrongType, at + ".op", "\(at).op must be an object"))
        }
        ops.append((id, Result { () throws(ProtocolError) in try Intent.decode(element["op"]!) }))
      }
      return .success(ops)
    }
  }

  /// 422 for a body of the wrong shape, with the protocol's `code` and where (`at`).
  private static func shape(_ code: ErrorCode, _ at: String, _ detail: String) -> APIRoutes.Problem {
    APIRoutes.Problem(
      422, "unprocessable", detail, extensions: [("code", .string(code.rawValue)), ("at", .string(at))])
  }
}
