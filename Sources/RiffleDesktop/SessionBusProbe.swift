import CSystemd
import Foundation

/// Whether a session bus answers, and who is on it (`riffle doctor`). Blocks for at most a
/// couple of seconds; never on the player's main queue.
public enum SessionBusProbe {
  public struct Finding: Equatable, Sendable {
    /// Why there is no usable bus; nil when it answers.
    public var problem: String?
    /// A notification server owns org.freedesktop.Notifications.
    public var hasNotificationServer: Bool
    /// Another program owns Riffle's MPRIS name (another Riffle runs).
    public var mprisNameTaken: Bool
  }

  public static func check(address: String? = nil) -> Finding {
    guard let bus = SessionBus.open(address) else {
      let configured = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
      let problem =
        SystemdLibrary.problem.map { "libsystemd cannot be loaded (\($0))" }
        ?? configured.map { "cannot connect to \($0)" } ?? "no DBUS_SESSION_BUS_ADDRESS"
      return Finding(problem: problem, hasNotificationServer: false, mprisNameTaken: false)
    }
    defer { _ = sd.sd_bus_flush_close_unref(bus) }
    _ = sd.sd_bus_set_method_call_timeout(bus, 2_000_000)
    guard let notifications = hasOwner("org.freedesktop.Notifications", bus: bus) else {
      return Finding(
        problem: "the bus does not answer", hasNotificationServer: false, mprisNameTaken: false)
    }
    return Finding(
      problem: nil, hasNotificationServer: notifications,
      mprisNameTaken: hasOwner(MediaPlayerService.busName, bus: bus) ?? false)
  }

  /// org.freedesktop.DBus.NameHasOwner; nil when the call fails.
  private static func hasOwner(_ name: String, bus: OpaquePointer) -> Bool? {
    var call: OpaquePointer?
    guard
      sd.sd_bus_message_new_method_call(
        bus, &call, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "NameHasOwner") >= 0, let call
    else { return nil }
    defer { _ = sd.sd_bus_message_unref(call) }
    guard DBusValue.string(name).append(to: call) >= 0 else { return nil }
    var error = sd_bus_error()
    var reply: OpaquePointer?
    defer { sd.sd_bus_error_free(&error) }
    guard sd.sd_bus_call(bus, call, 0, &error, &reply) >= 0, let reply else { return nil }
    defer { _ = sd.sd_bus_message_unref(reply) }
    guard case .bool(let owned) = DBusCall(message: reply).readValue() else { return nil }
    return owned
  }
}
