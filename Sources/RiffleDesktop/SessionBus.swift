import CLinux
import CSystemd
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The D-Bus session bus, driven by sd-bus on a thread of its own.
///
/// sd-bus objects are not thread-safe, so everything that touches the connection happens on that
/// thread: calls arrive there, and other threads hand it work with `perform`, which wakes it
/// through a pipe. The main queue never waits for the bus. When there is no session bus (no
/// address, or nobody listening) the thread ends quietly and later work is dropped.
public final class SessionBus: @unchecked Sendable {
  private let lock = NSLock()
  private var jobs: [(SessionBus) -> Void] = []
  private var wakeRead: Int32 = -1
  private var wakeWrite: Int32 = -1
  private var stopped = false
  /// The sd_bus connection; touched only on the bus thread.
  private(set) var bus: OpaquePointer?
  private var handlers: [String: Box] = [:]
  /// A bus address to use instead of the user's session bus.
  private let address: String?

  /// What a registered object does with a method call; returns false to let sd-bus answer.
  public typealias Handler = (DBusCall) -> Bool

  private final class Box {
    let handle: Handler
    init(_ handle: @escaping Handler) { self.handle = handle }
  }

  /// Starts the bus thread, which connects; work handed over before that waits for it.
  public init(address: String? = nil) {
    self.address = address
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else {
      stopped = true
      return
    }
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    wakeRead = fds[0]
    wakeWrite = fds[1]
    let thread = Thread { [self] in
      // Named for /proc and debuggers (Foundation's `name` does not reach the kernel here).
      riffle_name_current_thread("riffle-dbus")
      run()
    }
    thread.start()
  }

  /// Runs `job` on the bus thread (dropped if there is no bus).
  public func perform(_ job: @escaping (SessionBus) -> Void) {
    let accepted = lock.withLock {
      guard !stopped else { return false }
      jobs.append(job)
      return true
    }
    guard accepted, wakeWrite >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  // MARK: on the bus thread

  /// Asks for a well-known name; false when another connection has it.
  public func requestName(_ name: String) -> Bool {
    guard let bus else { return false }
    return sd.sd_bus_request_name(bus, name, 0) >= 0
  }

  /// Sends method calls at `path` to `handler`.
  public func addObject(path: String, handler: @escaping Handler) -> Bool {
    guard let bus else { return false }
    let box = Box(handler)
    handlers[path] = box
    let result = sd.sd_bus_add_object(
      bus, nil, path,
      { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        let box = Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue()
        return box.handle(DBusCall(message: message)) ? 1 : 0
      }, Unmanaged.passUnretained(box).toOpaque())
    return result >= 0
  }

  /// Sends a signal whose arguments `body` appends.
  func emit(
    path: String, interface: String, member: String, body: (OpaquePointer) -> Int32
  ) {
    guard let bus else { return }
    var message: OpaquePointer?
    guard sd.sd_bus_message_new_signal(bus, &message, path, interface, member) >= 0, let message
    else { return }
    defer { _ = sd.sd_bus_message_unref(message) }
    if body(message) >= 0 { _ = sd.sd_bus_send(bus, message, nil) }
  }

  /// Calls a method without waiting: `reply` gets the answer (nil on error) on the bus thread.
  func call(
    destination: String, path: String, interface: String, member: String,
    body: (OpaquePointer) -> Int32, reply: @escaping (DBusCall?) -> Void
  ) {
    guard let bus else { return }
    var message: OpaquePointer?
    guard
      sd.sd_bus_message_new_method_call(bus, &message, destination, path, interface, member) >= 0,
      let message
    else { return }
    defer { _ = sd.sd_bus_message_unref(message) }
    guard body(message) >= 0 else { return }
    let box = ReplyBox(reply)
    let context = Unmanaged.passRetained(box).toOpaque()
    let result = sd.sd_bus_call_async(
      bus, nil, message,
      { message, userdata, _ in
        guard let userdata else { return 0 }
        let box = Unmanaged<ReplyBox>.fromOpaque(userdata).takeRetainedValue()
        let answer = message.map { DBusCall(message: $0) }
        box.reply(
          answer.flatMap { sd.sd_bus_message_is_method_error($0.message, nil) != 0 ? nil : $0 })
        return 1
      }, context, 5_000_000)
    if result < 0 { Unmanaged<ReplyBox>.fromOpaque(context).release() }
  }

  private final class ReplyBox {
    let reply: (DBusCall?) -> Void
    init(_ reply: @escaping (DBusCall?) -> Void) { self.reply = reply }
  }

  private func run() {
    guard let connection = Self.open(address) else {
      stop()
      return
    }
    bus = connection
    var fds = [pollfd(), pollfd()]
    while true {
      var processed: Int32 = 1
      while processed > 0 { processed = sd.sd_bus_process(connection, nil) }
      if processed < 0 {
        // The bus went away: no more MPRIS, the player goes on.
        FileHandle.standardError.write(
          Data("dbus: the session bus closed (\(String(cString: strerror(-processed))))\n".utf8))
        break
      }
      let pending = lock.withLock {
        let taken = jobs
        jobs = []
        return taken
      }
      for job in pending { job(self) }
      if !pending.isEmpty { continue }

      let events = sd.sd_bus_get_events(connection)
      guard events >= 0 else { break }
      fds[0] = pollfd(
        fd: sd.sd_bus_get_fd(connection), events: Int16(truncatingIfNeeded: events), revents: 0)
      fds[1] = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
      _ = poll(&fds, 2, Self.pollTimeout(connection))
      if fds[1].revents != 0 {
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &drain, drain.count) > 0 {}
      }
    }
    stop()
    _ = sd.sd_bus_flush_close_unref(connection)
    bus = nil
  }

  /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) or
  /// to `address`. libsystemd is loaded here, and only when there may be a bus to connect to.
  static func open(_ address: String?) -> OpaquePointer? {
    guard address != nil || userBusMayExist, SystemdLibrary.isLoaded else { return nil }
    var bus: OpaquePointer?
    guard let address else { return sd.sd_bus_open_user(&bus) >= 0 ? bus : nil }
    guard sd.sd_bus_new(&bus) >= 0, let bus else { return nil }
    guard sd.sd_bus_set_address(bus, address) >= 0, sd.sd_bus_set_bus_client(bus, 1) >= 0,
      sd.sd_bus_start(bus) >= 0
    else {
      _ = sd.sd_bus_unref(bus)
      return nil
    }
    return bus
  }

  /// Whether `sd_bus_open_user` has anything to try: the variable, or a socket where it looks
  /// without one.
  static var userBusMayExist: Bool {
    let environment = ProcessInfo.processInfo.environment
    if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
    let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
    return FileManager.default.fileExists(atPath: runtime + "/bus")
  }

  private func stop() {
    lock.withLock {
      stopped = true
      jobs = []
    }
  }

  /// Milliseconds until sd-bus needs to run again (a call's time-out), -1 for never.
  private static func pollTimeout(_ bus: OpaquePointer) -> Int32 {
    var until: UInt64 = 0
    guard sd.sd_bus_get_timeout(bus, &until) >= 0, until != UInt64.max else { return -1 }
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    let nowMicros = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    guard until > nowMicros else { return 0 }
    return Int32(min((until - nowMicros + 999) / 1000, 60_000))
  }
}

/// A message from the bus: a method call to answer, or a reply to read.
public struct DBusCall {
  let message: OpaquePointer

  public var interface: String? {
    sd.sd_bus_message_get_interface(message).map { String(cString: $0) }
  }
  public var member: String? { sd.sd_bus_message_get_member(message).map { String(cString: $0) } }

  /// Reads the next argument as a string (`s`) or object path (`o`).
  func readString(type: Character = "s") -> String? {
    var pointer: UnsafePointer<CChar>?
    guard sd.sd_bus_message_read_basic(message, DBusValue.code(type), &pointer) > 0, let pointer
    else { return nil }
    return String(cString: pointer)
  }

  func readInt64() -> Int64? {
    var value: Int64 = 0
    return sd.sd_bus_message_read_basic(message, DBusValue.code("x"), &value) > 0 ? value : nil
  }

  func readUInt32() -> UInt32? {
    var value: UInt32 = 0
    return sd.sd_bus_message_read_basic(message, DBusValue.code("u"), &value) > 0 ? value : nil
  }

  /// Reads the next argument of the types `DBusValue` has (a variant is read as its content);
  /// nil at the end of the message or for another type.
  public func readValue() -> DBusValue? {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>?
    guard sd.sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
    let inner = contents.map { String(cString: $0) } ?? ""
    switch UnicodeScalar(UInt8(bitPattern: type)) {
    case "s": return readString().map(DBusValue.string)
    case "o": return readString(type: "o").map(DBusValue.objectPath)
    case "x": return readInt64().map(DBusValue.int64)
    case "u": return readUInt32().map(DBusValue.uint32)
    case "b":
      var value: Int32 = 0
      return sd.sd_bus_message_read_basic(message, type, &value) > 0 ? .bool(value != 0) : nil
    case "y":
      var value: UInt8 = 0
      return sd.sd_bus_message_read_basic(message, type, &value) > 0 ? .byte(value) : nil
    case "i":
      var value: Int32 = 0
      return sd.sd_bus_message_read_basic(message, type, &value) > 0 ? .int32(value) : nil
    case "d":
      var value: Double = 0
      return sd.sd_bus_message_read_basic(message, type, &value) > 0 ? .double(value) : nil
    case "v":
      guard sd.sd_bus_message_enter_container(message, type, inner) > 0 else { return nil }
      defer { _ = sd.sd_bus_message_exit_container(message) }
      return readValue()
    case "a" where inner == "s":
      guard sd.sd_bus_message_enter_container(message, type, inner) > 0 else { return nil }
      defer { _ = sd.sd_bus_message_exit_container(message) }
      var items: [String] = []
      while let item = readString() { items.append(item) }
      return .stringArray(items)
    case "a" where inner == "o":
      guard sd.sd_bus_message_enter_container(message, type, inner) > 0 else { return nil }
      defer { _ = sd.sd_bus_message_exit_container(message) }
      var items: [String] = []
      while let item = readString(type: "o") { items.append(item) }
      return .objectPathArray(items)
    case "a" where inner == "{sv}":
      guard sd.sd_bus_message_enter_container(message, type, inner) > 0 else { return nil }
      defer { _ = sd.sd_bus_message_exit_container(message) }
      var entries: [String: DBusValue] = [:]
      while sd.sd_bus_message_enter_container(message, DBusValue.code("e"), "sv") > 0 {
        if let key = readString(), let value = readValue() { entries[key] = value }
        _ = sd.sd_bus_message_exit_container(message)
      }
      return .dictionary(entries)
    default:
      return nil
    }
  }

  /// Answers with these arguments; returns true (the call was handled) even if sending failed.
  @discardableResult
  public func reply(_ body: (OpaquePointer) -> Int32) -> Bool {
    var reply: OpaquePointer?
    guard sd.sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return true }
    defer { _ = sd.sd_bus_message_unref(reply) }
    if body(reply) >= 0 { _ = sd.sd_bus_send(nil, reply, nil) }
    return true
  }

  /// Answers with these values as the reply's arguments.
  @discardableResult
  public func reply(values: [DBusValue]) -> Bool {
    reply { message in
      var result: Int32 = 0
      for value in values where result >= 0 { result = value.append(to: message) }
      return result
    }
  }

  @discardableResult
  func replyEmpty() -> Bool {
    _ = riffle_sd_bus_reply_empty(SystemdLibrary.table, message)
    return true
  }

  /// Answers with a D-Bus error (`org.freedesktop.DBus.Error.*` or our own).
  @discardableResult
  func fail(_ name: String, _ text: String) -> Bool {
    var error = sd_bus_error()
    _ = sd.sd_bus_error_set(&error, name, text)
    _ = sd.sd_bus_reply_method_error(message, &error)
    sd.sd_bus_error_free(&error)
    return true
  }
}
