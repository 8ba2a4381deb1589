import FuzzSupport
import ReorderRooms

// The client message decoder (`ClientMessage.decode`, with `Intent.decode` and the field rules):
// never crashes; a refusal has a code and a message and keeps the frame's `type` when it had a
// string one; an accepted message written back as JSON (by an encoder of its own) decodes to the
// same message, and decoding the parsed value gives what decoding the bytes gave.
runFuzzer { bytes in
  let typeText = (try? JSONValue.parse(bytes))?["type"]?.stringValue
  let message: ClientMessage
  do throws(MessageDecodingError) {
    message = try ClientMessage.decode(bytes)
  } catch {
    fuzzCheck(!error.error.message.isEmpty, "a refusal without a message")
    if let typeText { fuzzCheck(error.type == typeText, "the refusal lost the frame's type") }
    if error.opID != nil { fuzzCheck(typeText == "op", "an op id on a refusal of a \(typeText ?? "?") frame") }
    return
  }
  fuzzCheck(typeText == message.fuzzJSON["type"]?.stringValue, "decoded as another type")
  let again: ClientMessage
  do throws(MessageDecodingError) {
    again = try ClientMessage.decode(message.fuzzJSON.encoded())
  } catch {
    fuzzCheck(false, "the re-encoded message is refused: \(error.error.message)")
    return
  }
  fuzzCheck(again == message, "decode(encode(m)) != m")
}
