import Foundation

/// Any JSON value. Sources decode into this first so that a wrong type in one field costs
/// that field, not the whole response.
public enum JSONValue: Equatable, Sendable, Decodable {
  case null
  case bool(Bool)
  /// A whole number that fits 64 bits, kept exact (ids can be 19 digits long).
  case integer(Int64)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int64.self) {
      self = .integer(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public subscript(key: String) -> JSONValue? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  /// A string, or a number written as text (ids are sometimes numbers).
  public var text: String? {
    switch self {
    case .string(let s): return s
    case .integer(let n): return String(n)
    case .number(let n) where n.isFinite && n == n.rounded() && abs(n) < 1e15:
      return String(Int64(n))
    case .number(let n): return String(n)
    default: return nil
    }
  }

  /// A non-empty string after trimming, or nil.
  public var nonEmptyText: String? {
    guard let text else { return nil }
    // Most text has nothing to trim: ASCII that is not whitespace at both ends. Foundation's
    // trimming is slow on Linux (it was 40% of decoding a large feed), so it runs only when
    // there may be something to trim.
    if let first = text.utf8.first, let last = text.utf8.last,
      !Self.mayBeWhitespace(first), !Self.mayBeWhitespace(last)
    {
      return text
    }
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
  }

  /// False only for an ASCII byte that is not a space, tab or line break; a byte of a
  /// multi-byte character may belong to Unicode whitespace (U+00A0, U+3000, ...).
  private static func mayBeWhitespace(_ byte: UInt8) -> Bool {
    byte >= 0x80 || byte == 0x20 || (0x09...0x0D).contains(byte)
  }

  public var double: Double? {
    switch self {
    case .integer(let n): return Double(n)
    case .number(let n): return n.isFinite ? n : nil
    case .string(let s):
      guard let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite else { return nil }
      return d
    default: return nil
    }
  }

  /// A whole number; fractions are dropped, values outside Int's range are nil.
  public var int: Int? {
    if case .integer(let n) = self { return Int(exactly: n) }
    // Double(Int.max) rounds up to 2^63, which Int cannot hold: compare with < .
    guard let d = double, d >= -9.223_372_036_854_775e18, d < 9.223_372_036_854_775e18 else {
      return nil
    }
    return Int(d)
  }

  public var bool: Bool? {
    switch self {
    case .bool(let b): return b
    case .integer(let n): return n != 0
    case .number(let n): return n != 0
    case .string(let s):
      switch s.lowercased() {
      case "true", "1", "yes": return true
      case "false", "0", "no": return false
      default: return nil
      }
    default: return nil
    }
  }

  public var array: [JSONValue]? {
    if case .array(let items) = self { return items }
    return nil
  }

  /// Parses JSON bytes, describing where the text is broken when it is.
  public static func parse(_ data: Data) throws(InvalidJSON) -> JSONValue {
    do {
      return try JSONDecoder().decode(JSONValue.self, from: data)
    } catch let DecodingError.dataCorrupted(context) {
      let why = (context.underlyingError as NSError?)?.localizedDescription
      throw InvalidJSON(detail: why ?? context.debugDescription)
    } catch {
      throw InvalidJSON(detail: String(describing: error))
    }
  }
}

/// Bytes that are not JSON, from whichever service sent them; `detail` says where they break.
public struct InvalidJSON: Error, Equatable, Sendable, CustomStringConvertible {
  public var detail: String

  public init(detail: String) {
    self.detail = detail
  }

  public var description: String { "not valid JSON (\(detail))" }
}
