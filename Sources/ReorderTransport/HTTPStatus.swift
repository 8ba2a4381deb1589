/// HTTP status codes' reason phrases (RFC 9110), for every HTTP/1 status line the transport writes.
enum HTTPStatus {
  /// The reason phrase of `status` ("Forbidden" for 403); "Error" for a code it does not list.
  static func reasonPhrase(_ status: Int) -> String {
    phrases[status] ?? (status < 400 ? "OK" : "Error")
  }

  private static let phrases: [Int: String] = [
    200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 304: "Not Modified", 400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 410: "Gone",
    411: "Length Required", 413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content",
    429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable",
  ]
}
