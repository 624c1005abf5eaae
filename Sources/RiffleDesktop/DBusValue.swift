import CSystemd
import Foundation

/// A value Riffle sends over D-Bus: the few types MPRIS and notifications need.
///
/// Deliberately not `indirect` (a dictionary nests through its own storage already): an
/// indirect enum keeps each value in a box and stores the box's address with the case number
/// in its top bits, which LeakSanitizer cannot follow, so every published MPRIS property was
/// reported as leaked at exit (docs/hardening.md), and each state cost a dozen allocations.
public enum DBusValue: Equatable, Sendable {
  case string(String)
  case objectPath(String)
  case bool(Bool)
  case byte(UInt8)
  case int32(Int32)
  case uint32(UInt32)
  case int64(Int64)
  case double(Double)
  case stringArray([String])
  /// `ao`
  case objectPathArray([String])
  /// `aa{sv}`: one dictionary each (MPRIS's GetTracksMetadata).
  case dictionaryArray([[String: DBusValue]])
  /// `a{sv}`: written in key order, so a message is the same for the same values.
  case dictionary([String: DBusValue])

  /// The D-Bus type signature.
  public var signature: String {
    switch self {
    case .string: return "s"
    case .objectPath: return "o"
    case .bool: return "b"
    case .byte: return "y"
    case .int32: return "i"
    case .uint32: return "u"
    case .int64: return "x"
    case .double: return "d"
    case .stringArray: return "as"
    case .objectPathArray: return "ao"
    case .dictionaryArray: return "aa{sv}"
    case .dictionary: return "a{sv}"
    }
  }

  /// Appends the value to a message under construction; a negative errno on failure.
  func append(to message: OpaquePointer) -> Int32 {
    switch self {
    case .string(let text): return DBusValue.appendString(text, type: "s", to: message)
    case .objectPath(let path): return DBusValue.appendString(path, type: "o", to: message)
    case .bool(let flag):
      var value: Int32 = flag ? 1 : 0
      return sd.sd_bus_message_append_basic(message, DBusValue.code("b"), &value)
    case .byte(var value):
      return sd.sd_bus_message_append_basic(message, DBusValue.code("y"), &value)
    case .int32(var value):
      return sd.sd_bus_message_append_basic(message, DBusValue.code("i"), &value)
    case .uint32(var value):
      return sd.sd_bus_message_append_basic(message, DBusValue.code("u"), &value)
    case .int64(var value):
      return sd.sd_bus_message_append_basic(message, DBusValue.code("x"), &value)
    case .double(var value):
      return sd.sd_bus_message_append_basic(message, DBusValue.code("d"), &value)
    case .stringArray(let items):
      var result = sd.sd_bus_message_open_container(message, DBusValue.code("a"), "s")
      for item in items where result >= 0 {
        result = DBusValue.appendString(item, type: "s", to: message)
      }
      return result >= 0 ? sd.sd_bus_message_close_container(message) : result
    case .objectPathArray(let items):
      var result = sd.sd_bus_message_open_container(message, DBusValue.code("a"), "o")
      for item in items where result >= 0 {
        result = DBusValue.appendString(item, type: "o", to: message)
      }
      return result >= 0 ? sd.sd_bus_message_close_container(message) : result
    case .dictionaryArray(let items):
      var result = sd.sd_bus_message_open_container(message, DBusValue.code("a"), "a{sv}")
      for item in items where result >= 0 {
        result = DBusValue.appendDictionary(item, to: message)
      }
      return result >= 0 ? sd.sd_bus_message_close_container(message) : result
    case .dictionary(let entries):
      return DBusValue.appendDictionary(entries, to: message)
    }
  }

  /// Appends `a{sv}`.
  static func appendDictionary(_ entries: [String: DBusValue], to message: OpaquePointer) -> Int32 {
    var result = sd.sd_bus_message_open_container(message, code("a"), "{sv}")
    for key in entries.keys.sorted() where result >= 0 {
      result = sd.sd_bus_message_open_container(message, code("e"), "sv")
      if result >= 0 { result = appendString(key, type: "s", to: message) }
      if result >= 0 { result = entries[key]!.appendVariant(to: message) }
      if result >= 0 { result = sd.sd_bus_message_close_container(message) }
    }
    return result >= 0 ? sd.sd_bus_message_close_container(message) : result
  }

  /// Appends the value wrapped in a variant (`v`).
  func appendVariant(to message: OpaquePointer) -> Int32 {
    var result = sd.sd_bus_message_open_container(message, DBusValue.code("v"), signature)
    if result >= 0 { result = append(to: message) }
    return result >= 0 ? sd.sd_bus_message_close_container(message) : result
  }

  private static func appendString(_ text: String, type: Character, to message: OpaquePointer)
    -> Int32
  {
    // D-Bus strings cannot hold NUL; a title from a server might.
    let clean = text.replacingOccurrences(of: "\0", with: "")
    return clean.withCString { sd.sd_bus_message_append_basic(message, code(type), $0) }
  }

  static func code(_ type: Character) -> CChar { CChar(type.asciiValue!) }
}
