import CSQLite
import Foundation

/// An error from SQLite, in words a user can act on (a full disk, a busy or damaged index).
public struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
  /// SQLite's primary result code (`SQLITE_FULL`, `SQLITE_BUSY`, ...).
  public var code: Int32
  public var message: String
  public var path: String

  public var isDiskFull: Bool { code == SQLITE_FULL }
  public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

  public var description: String {
    switch code {
    case SQLITE_FULL:
      return "the disk is full: the library index (\(path)) could not be written; "
        + "what it held before is kept"
    case SQLITE_BUSY, SQLITE_LOCKED:
      return "the library index (\(path)) is busy: another Riffle is writing it"
    case SQLITE_CORRUPT, SQLITE_NOTADB:
      return "the library index (\(path)) is damaged (\(message)); remove it and scan again"
    case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM:
      return "the library index (\(path)) cannot be written: \(message)"
    default:
      return "library index (\(path)): \(message)"
    }
  }
}

/// One SQLite connection: statements prepared once and kept, values bound by position.
///
/// Not thread-safe: one thread uses a connection (the scanner its own, the player its own).
final class SQLiteConnection {
  private var handle: OpaquePointer?
  let path: String
  private var statements: [String: OpaquePointer] = [:]

  /// Opens (and creates) the database at `path` in WAL mode, waiting up to `busyTimeout`
  /// milliseconds for a lock another process holds.
  init(path: String, readOnly: Bool = false, busyTimeout: Int32 = 10_000) throws(SQLiteError) {
    self.path = path
    let flags =
      (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
      | SQLITE_OPEN_NOMUTEX
    let result = sqlite3_open_v2(path, &handle, flags, nil)
    guard result == SQLITE_OK else {
      let error = SQLiteError(
        code: result & 0xFF,
        message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open", path: path)
      sqlite3_close_v2(handle)
      handle = nil
      throw error
    }
    sqlite3_extended_result_codes(handle, 0)
    sqlite3_busy_timeout(handle, busyTimeout)
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  private func error(_ code: Int32) -> SQLiteError {
    SQLiteError(code: code & 0xFF, message: String(cString: sqlite3_errmsg(handle)), path: path)
  }

  /// Runs SQL without results (several statements allowed).
  func execute(_ sql: String) throws(SQLiteError) {
    let result = sqlite3_exec(handle, sql, nil, nil, nil)
    guard result == SQLITE_OK else { throw error(result) }
  }

  /// Runs `body` in one transaction (`BEGIN IMMEDIATE`: the write lock is taken at once, so
  /// two writers wait for each other instead of failing halfway); rolled back if it throws.
  func transaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let value = try body()
      try execute("COMMIT")
      return value
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// A prepared statement for `sql`, kept for the connection's life.
  private func statement(_ sql: String) throws(SQLiteError) -> OpaquePointer {
    if let statement = statements[sql] {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
      return statement
    }
    var statement: OpaquePointer?
    let result = sqlite3_prepare_v3(
      handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard result == SQLITE_OK, let statement else { throw error(result) }
    statements[sql] = statement
    return statement
  }

  private func bind(_ values: [SQLValue], to statement: OpaquePointer) throws(SQLiteError) {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let result: Int32
      switch value {
      case .null: result = sqlite3_bind_null(statement, index)
      case .integer(let number): result = sqlite3_bind_int64(statement, index, number)
      case .real(let number): result = sqlite3_bind_double(statement, index, number)
      case .text(let text):
        result = sqlite3_bind_text(statement, index, text, -1, riffle_sqlite_transient())
      }
      guard result == SQLITE_OK else { throw error(result) }
    }
  }

  /// Runs one statement that returns no rows; returns the rows it changed.
  @discardableResult
  func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int {
    let statement = try statement(sql)
    try bind(values, to: statement)
    let result = sqlite3_step(statement)
    sqlite3_reset(statement)
    guard result == SQLITE_DONE || result == SQLITE_ROW else { throw error(result) }
    return Int(sqlite3_changes(handle))
  }

  /// Runs a query, handing each row to `body`.
  func query(_ sql: String, _ values: [SQLValue] = [], _ body: (SQLRow) throws -> Void) throws {
    let statement = try statement(sql)
    defer { sqlite3_reset(statement) }
    try bind(values, to: statement)
    while true {
      let result = sqlite3_step(statement)
      if result == SQLITE_DONE { return }
      guard result == SQLITE_ROW else { throw error(result) }
      try body(SQLRow(statement: statement))
    }
  }

  /// The first column of the first row as an integer, or nil.
  func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
    var value: Int64?
    try query(sql, values) { row in if value == nil { value = row.integer(0) } }
    return value
  }

  var lastInsertedRow: Int64 { sqlite3_last_insert_rowid(handle) }
}

/// A value bound to a statement.
enum SQLValue {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)

  static func optional(_ text: String?) -> SQLValue { text.map(SQLValue.text) ?? .null }
  static func optional(_ number: Int?) -> SQLValue { number.map { .integer(Int64($0)) } ?? .null }
  static func optional(_ number: Double?) -> SQLValue { number.map(SQLValue.real) ?? .null }
}

/// The current row of a query, read by column index.
struct SQLRow {
  let statement: OpaquePointer

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

  func integer(_ column: Int32) -> Int64? {
    isNull(column) ? nil : sqlite3_column_int64(statement, column)
  }

  func real(_ column: Int32) -> Double? {
    isNull(column) ? nil : sqlite3_column_double(statement, column)
  }

  func text(_ column: Int32) -> String? {
    guard let pointer = sqlite3_column_text(statement, column) else { return nil }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
  }
}
