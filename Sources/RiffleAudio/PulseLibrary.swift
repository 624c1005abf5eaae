import CPulseSimple

/// libpulse-simple as Riffle loads it: by the first stream, not at start (see CPulseSimple.h).
enum PulseLibrary {
  /// The functions, for code that holds a stream (which only opens once they loaded).
  static var functions: RifflePulse {
    guard let table = riffle_pulse() else {
      preconditionFailure("a PulseAudio stream is open, so its library is loaded")
    }
    return table.pointee
  }

  /// PulseAudio's words for an error code.
  static func describe(_ error: Int32) -> String {
    functions.pa_strerror(error).map { String(cString: $0) } ?? "error \(error)"
  }
}
