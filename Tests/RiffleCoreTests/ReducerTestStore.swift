import Testing

@testable import RiffleCore

/// An exhaustive test driver for `reduce(_:_:)`, in the spirit of TCA's `TestStore`.
///
/// Each `send` runs the reducer on the current state, applies the caller's expected mutation to
/// a copy of the state as it was before, and expects the two to be equal: every field the action
/// changed must be asserted, and nothing else may change. The effects returned must equal the
/// expected ones exactly, in order. Failures name the fields that differ.
///
/// ```swift
/// var store = ReducerTestStore(state)
/// store.send(.next, effects: [.play(second, playID: 2)]) {
///   $0.index = 1
///   $0.playID = 2
/// }
/// ```
struct ReducerTestStore {
  /// The state after the last `send`.
  private(set) var state: PlayerState

  init(_ state: PlayerState) {
    self.state = state
  }

  /// Sends `action` and checks the new state and the effects.
  ///
  /// - Parameters:
  ///   - effects: every effect the reducer must return, in order; `[]` when none.
  ///   - update: the expected change, applied to a copy of the previous state. Leave it out
  ///     when the action must not change anything.
  /// - Returns: the effects the reducer actually returned.
  @discardableResult
  mutating func send(
    _ action: PlayerAction,
    effects expectedEffects: [PlayerEffect] = [],
    _ update: (inout PlayerState) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> [PlayerEffect] {
    var expected = state
    update(&expected)
    var actual = state
    let effects = reduce(&actual, action)

    // Compared outside the macro so a failure prints the short field diff, not both states.
    let stateMatches = actual == expected
    let stateDiff = stateMatches ? "" : StateDiff.lines(expected: expected, actual: actual)
    #expect(
      stateMatches,
      "State after \(String(describing: action)) differs from the expected state:\n\(stateDiff)",
      sourceLocation: sourceLocation)
    #expect(
      effects == expectedEffects,
      """
      Effects of \(String(describing: action)) differ:
        expected: \(String(describing: expectedEffects))
          actual: \(String(describing: effects))
      """,
      sourceLocation: sourceLocation)

    state = actual
    return effects
  }
}

/// Field-by-field differences between two values, found with `Mirror`.
enum StateDiff {
  /// One line per differing leaf: "songs[1].likeCount: expected 4, actual 5".
  static func lines<Value>(expected: Value, actual: Value) -> String {
    var out: [String] = []
    collect(path: "", expected, actual, into: &out)
    return out.isEmpty ? "  (no field-level difference found)" : out.joined(separator: "\n")
  }

  private static func collect(
    path: String, _ expected: Any, _ actual: Any, into out: inout [String]
  ) {
    let expectedText = String(reflecting: expected)
    let actualText = String(reflecting: actual)
    guard expectedText != actualText else { return }

    let expectedMirror = Mirror(reflecting: expected)
    let actualMirror = Mirror(reflecting: actual)
    let expectedChildren = Array(expectedMirror.children)
    let actualChildren = Array(actualMirror.children)
    let sameShape =
      expectedMirror.displayStyle == actualMirror.displayStyle
      && expectedChildren.count == actualChildren.count
      && !expectedChildren.isEmpty
      && expectedMirror.displayStyle != .enum
      && expectedMirror.displayStyle != .optional
      && zip(expectedChildren, actualChildren).allSatisfy { $0.label == $1.label }

    if sameShape {
      for (offset, (e, a)) in zip(expectedChildren, actualChildren).enumerated() {
        let component: String
        if expectedMirror.displayStyle == .collection {
          component = "[\(offset)]"
        } else if let label = e.label {
          component = path.isEmpty ? label : ".\(label)"
        } else {
          component = ".\(offset)"
        }
        collect(path: path + component, e.value, a.value, into: &out)
      }
      return
    }

    let name = path.isEmpty ? "(value)" : path
    out.append("  \(name): expected \(expectedText), actual \(actualText)")
  }
}
