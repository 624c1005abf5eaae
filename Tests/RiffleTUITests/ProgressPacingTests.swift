import RiffleTUI
import Testing

@Suite("ProgressPacing: when the progress row next changes")
struct ProgressPacingTests {
  @Test("Without a bar the clock's next whole second decides")
  func clockOnly() {
    #expect(
      abs(ProgressPacing.secondsUntilChange(position: 12.25, duration: nil, barCells: 0) - 0.75)
        < 1e-9)
    #expect(
      abs(ProgressPacing.secondsUntilChange(position: 0, duration: 180, barCells: 0) - 1) < 1e-9)
  }

  @Test("A long song on a short bar: the clock turns before the knob moves")
  func clockFirst() {
    // 180 s over 61 cells: the knob moves every 3 s.
    let wait = ProgressPacing.secondsUntilChange(position: 10.4, duration: 180, barCells: 61)
    #expect(abs(wait - 0.6) < 1e-9)
  }

  @Test("A short preview on a wide bar: the knob's next cell comes first")
  func barFirst() {
    // 30 s over 151 cells: a cell every 0.2 s; at 10.05 s the knob is in cell 50 until 10.2 s.
    let wait = ProgressPacing.secondsUntilChange(position: 10.05, duration: 30, barCells: 151)
    #expect(abs(wait - 0.15) < 1e-9)
  }

  @Test("Each wait lands where the drawn knob or clock changes")
  func landsOnChanges() {
    // Walking a song by its waits visits every change of the knob's cell and the clock once.
    let duration = 7.3
    let cells = 40
    func shown(_ p: Double) -> (Int, Int) {
      (Int(p), Int((Double(cells - 1) * min(1, p / duration)).rounded(.down)))
    }
    var position = 0.0
    var changes = 0
    while position < duration {
      let wait = ProgressPacing.secondsUntilChange(
        position: position, duration: duration, barCells: cells)
      #expect(wait > 0 && wait <= 1)
      let before = shown(position)
      let next = position + wait + 1e-9
      #expect(shown(next) != before, "nothing changed at \(next)")
      // Nothing changes sooner, except a change drawn together with the one woken for.
      let quiet = position + wait - ProgressPacing.together - 1e-6
      if quiet > position {
        #expect(shown(quiet) == before, "a change was missed before \(next)")
      }
      position = next
      changes += 1
    }
    // 7 clock turns and 39 knob moves, some at the same moment.
    #expect(changes >= 39 && changes <= 39 + 7)
  }

  @Test("A knob move just after the clock's turn is drawn with it, in one wake-up")
  func together() {
    // 36 s over 36 cells: the knob moves every 36/35 s, a little after each whole second, and
    // falls further behind the clock each time (1.029, 2.057, 3.086, 4.114, 5.143, 6.171 s).
    let cell = 36.0 / 35
    let pace = { (p: Double) in
      ProgressPacing.secondsUntilChange(position: p, duration: 36, barCells: 36)
    }
    // 0.029 s apart, then 0.114 and 0.143: one wake-up, at the knob's move.
    #expect(abs(pace(0.5) - (cell - 0.5)) < 1e-9)
    #expect(abs(pace(3.5) - (4 * cell - 3.5)) < 1e-9)
    #expect(abs(pace(4.5) - (5 * cell - 4.5)) < 1e-9)
    // 0.171 s apart: two wake-ups, the clock's first.
    #expect(abs(pace(5.5) - 0.5) < 1e-9)
  }

  @Test("Odd positions still give a wait of at most a second")
  func oddInput() {
    for position in [-.infinity, -3, .nan, .infinity, 1e12] {
      let wait = ProgressPacing.secondsUntilChange(position: position, duration: 30, barCells: 50)
      #expect(wait > 0 && wait <= 1, "\(position)")
    }
  }
}
