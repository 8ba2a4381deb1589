import FuzzSupport
import ReorderRooms

// The JSON parser (`JSONValue.parse`): never crashes on any bytes; a failure points inside the
// input with a message; an accepted document re-encodes to compact JSON that parses to the same
// value, and that encoding is a fixed point (encode ∘ parse ∘ encode = encode).
runFuzzer { bytes in
  let value: JSONValue
  do throws(JSONParseError) {
    value = try JSONValue.parse(bytes)
  } catch {
    fuzzCheck(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input")
    fuzzCheck(!error.message.isEmpty, "an empty error message")
    return
  }
  let encoded = value.encoded()
  guard let reparsed = try? JSONValue.parse(encoded) else {
    fuzzCheck(false, "the encoding of an accepted document does not parse")
    return
  }
  fuzzCheck(reparsed == value, "parse(encode(v)) != v")
  fuzzCheck(reparsed.encoded() == encoded, "encode(parse(encode(v))) != encode(v)")
}
