import Testing

@testable import RiffleCore

@Suite("Reducer: the visualizer")
struct VisualizerReducerTests {
  @Test("toggleVisualizer shows and hides it, with no effect, and is a user intent")
  func toggle() {
    var state = PlayerState()
    #expect(!state.visualizer)
    #expect(reduce(&state, .toggleVisualizer) == [])
    #expect(state.visualizer)
    #expect(reduce(&state, .toggleVisualizer) == [])
    #expect(!state.visualizer)
    #expect(PlayerAction.toggleVisualizer.isUserIntent)
  }
}
