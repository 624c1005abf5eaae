import Foundation

/// A forward-only reader over UTF-8 JSON bytes that builds nothing it is not asked for.
///
/// The feed decoder walks a document with it member by member: values it needs come back as
/// scalar `JSONValue`s, everything else is checked and skipped without being built. So a feed
/// never exists as a whole tree in memory (a 100,000-song feed as a tree took more than the
/// songs themselves). The reader accepts what `JSONDecoder` accepted for feeds: a UTF-8 byte
/// order mark, a trailing comma before `]` or `}`, and at most 512 levels of nesting; an
/// unpaired surrogate, invalid UTF-8, a control character in a string or a number too large
/// for a `Double` is an error. Where an object repeats a key, the first wins.
struct JSONReader {
  /// What the next value is, from its first byte.
  enum Kind: Equatable {
    case object
    case array
    case string
    case number
    case literal
  }

  /// Deepest nesting of arrays and objects accepted (as `JSONDecoder`).
  static let maxDepth = 512

  private let bytes: UnsafeRawBufferPointer
  private(set) var offset = 0
  private var depth = 0
  /// Open containers while skipping a value (true: object); kept to reuse its storage.
  private var skipStack: [Bool] = []

  /// `bytes` must stay valid while the reader is used.
  init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { offset = 3 }
  }

  // MARK: - Errors

  private func failure(_ what: String, at position: Int? = nil) -> FeedError {
    .invalidJSON("\(what) at byte \(position ?? offset)")
  }

  private func unexpected() -> FeedError {
    guard offset < bytes.count else { return failure("unexpected end of the data") }
    let byte = bytes[offset]
    let shown =
      byte >= 0x20 && byte < 0x7F
      ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    return failure("unexpected \(shown)")
  }

  // MARK: - Reading

  private mutating func skipWhitespace() {
    while offset < bytes.count {
      switch bytes[offset] {
      case 0x20, 0x09, 0x0A, 0x0D: offset += 1
      default: return
      }
    }
  }

  /// The next byte that is not whitespace, left unread.
  private mutating func peekByte() throws(FeedError) -> UInt8 {
    skipWhitespace()
    guard offset < bytes.count else { throw unexpected() }
    return bytes[offset]
  }

  /// What the next value is; throws when no value can start here.
  mutating func peekKind() throws(FeedError) -> Kind {
    switch try peekByte() {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): return .literal
    default: throw unexpected()
    }
  }

  /// Checks that nothing but whitespace follows the value read.
  mutating func finish() throws(FeedError) {
    skipWhitespace()
    if offset < bytes.count { throw failure("extra data after the JSON value") }
  }

  private mutating func open() throws(FeedError) {
    depth += 1
    offset += 1
    if depth > Self.maxDepth { throw failure("nested more than \(Self.maxDepth) levels deep") }
  }

  /// After one member or element: true at the closing byte (consumed), false after a comma
  /// with another member or element following. A comma just before the end is allowed.
  private mutating func atEnd(_ close: UInt8, first: Bool) throws(FeedError) -> Bool {
    var byte = try peekByte()
    if !first && byte != close {
      guard byte == UInt8(ascii: ",") else { throw unexpected() }
      offset += 1
      byte = try peekByte()
    }
    guard byte == close else { return false }
    offset += 1
    depth -= 1
    return true
  }

  /// Reads an object, calling `member` with each key; `member` must read or skip its value.
  mutating func readObject(
    _ member: (inout JSONReader, String) throws(FeedError) -> Void
  ) throws(FeedError) {
    guard try peekByte() == UInt8(ascii: "{") else { throw unexpected() }
    try open()
    var first = true
    while try !atEnd(UInt8(ascii: "}"), first: first) {
      first = false
      let key = try readKey()
      try member(&self, key)
    }
  }

  /// Reads an array, calling `element` for each; `element` must read or skip the value.
  mutating func readArray(_ element: (inout JSONReader) throws(FeedError) -> Void)
    throws(FeedError)
  {
    guard try peekByte() == UInt8(ascii: "[") else { throw unexpected() }
    try open()
    var first = true
    while try !atEnd(UInt8(ascii: "]"), first: first) {
      first = false
      try element(&self)
    }
  }

  private mutating func readKey() throws(FeedError) -> String {
    guard try peekByte() == UInt8(ascii: "\"") else { throw unexpected() }
    let key = try readString()
    guard try peekByte() == UInt8(ascii: ":") else { throw unexpected() }
    offset += 1
    return key
  }

  /// A string, number, boolean or null. An array or an object is checked, skipped and comes
  /// back empty: a field of the wrong type then reads as missing, as from a whole tree.
  mutating func readScalar() throws(FeedError) -> JSONValue {
    switch try peekKind() {
    case .string: return .string(try readString())
    case .number: return try readNumber()
    case .literal: return try readLiteral()
    case .object:
      try skipValue()
      return .object([:])
    case .array:
      try skipValue()
      return .array([])
    }
  }

  /// Checks the next value and moves past it, building nothing.
  mutating func skipValue() throws(FeedError) {
    skipStack.removeAll(keepingCapacity: true)
    repeat {
      // A value: the next one, or an opening that pushes a container.
      switch try peekKind() {
      case .object, .array:
        let isObject = bytes[offset] == UInt8(ascii: "{")
        try open()
        skipStack.append(isObject)
        if try atEnd(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"), first: true) {
          skipStack.removeLast()
        } else {
          if isObject { try skipKey() }
          continue
        }
      case .string: try skipString()
      case .number: _ = try readNumber()
      case .literal: _ = try readLiteral()
      }
      // After a value: close every container that ends here, then go on to the next value.
      while let isObject = skipStack.last {
        if try atEnd(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"), first: false) {
          skipStack.removeLast()
        } else {
          if isObject { try skipKey() }
          break
        }
      }
    } while !skipStack.isEmpty
  }

  private mutating func skipKey() throws(FeedError) {
    guard try peekByte() == UInt8(ascii: "\"") else { throw unexpected() }
    try skipString()
    guard try peekByte() == UInt8(ascii: ":") else { throw unexpected() }
    offset += 1
  }

  // MARK: - Literals and numbers

  private mutating func readLiteral() throws(FeedError) -> JSONValue {
    let (word, value): (StaticString, JSONValue) =
      switch bytes[offset] {
      case UInt8(ascii: "t"): ("true", .bool(true))
      case UInt8(ascii: "f"): ("false", .bool(false))
      default: ("null", .null)
      }
    let end = offset + word.utf8CodeUnitCount
    let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
    guard end <= bytes.count, bytes[offset..<end].elementsEqual(expected) else {
      throw failure("an invalid literal")
    }
    offset = end
    return value
  }

  /// A number as `JSONDecoder` gave it: whole values that fit 64 bits exactly as integers
  /// (`12.0` and `1e2` too), the rest as doubles; one too large for a double is an error.
  private mutating func readNumber() throws(FeedError) -> JSONValue {
    let start = offset
    func digits() -> Int {
      let from = offset
      while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 { offset += 1 }
      return offset - from
    }
    if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
    let integerStart = offset
    let integerDigits = digits()
    guard integerDigits > 0 else { throw failure("a number without digits", at: start) }
    if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
      throw failure("a number with a leading zero", at: start)
    }
    var isInteger = true
    if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
      offset += 1
      isInteger = false
      guard digits() > 0 else { throw failure("a number without digits after the point") }
    }
    if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
      offset += 1
      isInteger = false
      if offset < bytes.count,
        bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-")
      {
        offset += 1
      }
      guard digits() > 0 else { throw failure("a number without an exponent") }
    }
    let text = String(decoding: bytes[start..<offset], as: UTF8.self)
    if isInteger, let whole = Int64(text) { return .integer(whole) }
    guard let value = Double(text), value.isFinite else {
      throw failure("a number too large", at: start)
    }
    // Digits alone beyond 64 bits stay a double; a fraction or exponent that is whole does not.
    if !isInteger, let whole = Int64(exactly: value) { return .integer(whole) }
    return .number(value)
  }

  // MARK: - Strings

  /// Reads a string, decoding escapes; its bytes must be valid UTF-8 without control characters.
  mutating func readString() throws(FeedError) -> String {
    let start = offset + 1
    let (end, escaped) = try scanString()
    let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    if !escaped {
      guard let text = String(validating: raw, as: UTF8.self) else {
        throw failure("invalid UTF-8 in a string", at: start)
      }
      return text
    }
    var decoded: [UInt8] = []
    decoded.reserveCapacity(raw.count)
    var index = start
    while index < end {
      let byte = bytes[index]
      guard byte == UInt8(ascii: "\\") else {
        decoded.append(byte)
        index += 1
        continue
      }
      let code = bytes[index + 1]
      index += 2
      switch code {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(code)
      case UInt8(ascii: "b"): decoded.append(0x08)
      case UInt8(ascii: "f"): decoded.append(0x0C)
      case UInt8(ascii: "n"): decoded.append(0x0A)
      case UInt8(ascii: "r"): decoded.append(0x0D)
      case UInt8(ascii: "t"): decoded.append(0x09)
      default:  // "u", checked by scanString
        var scalar = hex4(at: index)
        index += 4
        if (0xD800..<0xDC00).contains(scalar) {
          // A high surrogate must be followed by an escaped low one.
          guard index + 6 <= end, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u"),
            case let low = hex4(at: index + 2), (0xDC00..<0xE000).contains(low)
          else { throw failure("an unpaired surrogate in a string", at: index - 6) }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          index += 6
        }
        guard let character = Unicode.Scalar(scalar) else {
          throw failure("an unpaired surrogate in a string", at: index - 6)
        }
        decoded.append(contentsOf: UTF8.encode(character)!)
      }
    }
    guard let text = String(validating: decoded, as: UTF8.self) else {
      throw failure("invalid UTF-8 in a string", at: start)
    }
    return text
  }

  private mutating func skipString() throws(FeedError) {
    let start = offset + 1
    let (end, escaped) = try scanString()
    if escaped
      || UnsafeRawBufferPointer(rebasing: bytes[start..<end]).contains(where: { $0 >= 0x80 })
    {
      // Rare: check escapes and UTF-8 the slow way.
      offset = start - 1
      _ = try readString()
    }
  }

  /// Moves past a string (the reader at its opening quote): returns where its content ends
  /// and whether it has escapes. Checks escapes' form and rejects control characters.
  private mutating func scanString() throws(FeedError) -> (end: Int, escaped: Bool) {
    offset += 1
    var escaped = false
    while offset < bytes.count {
      let byte = bytes[offset]
      switch byte {
      case UInt8(ascii: "\""):
        offset += 1
        return (offset - 1, escaped)
      case UInt8(ascii: "\\"):
        escaped = true
        guard offset + 1 < bytes.count else { throw failure("unexpected end of the data") }
        switch bytes[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
          UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          offset += 2
        case UInt8(ascii: "u"):
          guard offset + 6 <= bytes.count,
            bytes[(offset + 2)..<(offset + 6)].allSatisfy({ $0.isHexDigit })
          else { throw failure("an invalid \\u escape in a string") }
          offset += 6
        default: throw failure("an invalid escape in a string")
        }
      case 0..<0x20: throw failure("a control character in a string")
      default: offset += 1
      }
    }
    throw failure("unexpected end of the data")
  }

  private func hex4(at index: Int) -> UInt32 {
    bytes[index..<(index + 4)].reduce(0) { $0 << 4 | UInt32($1.hexValue) }
  }
}

extension UInt8 {
  fileprivate var isHexDigit: Bool { hexValue < 16 }

  /// 0...15 for a hex digit, 16 otherwise.
  fileprivate var hexValue: UInt8 {
    switch self {
    case 0x30...0x39: return self - 0x30
    case 0x41...0x46: return self - 0x41 + 10
    case 0x61...0x66: return self - 0x61 + 10
    default: return 16
    }
  }
}
