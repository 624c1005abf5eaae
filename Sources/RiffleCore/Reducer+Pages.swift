import Foundation

/// The one path every source of pages takes: open it and load its first page, load later pages
/// near the end, fail, wait and try again. Part of `reduce`.
func reducePages(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .open(let kind):
    if case .error = state.message?.kind { state.message = nil }
    return loadFirstPage(&state, kind)

  case .pageLoaded(let kind, nil, let page):
    return firstPageLoaded(&state, kind, page)

  case .pageLoaded(let kind, let cursor?, let page):
    return laterPageLoaded(&state, kind, cursor, page)

  case .pageFailed(let kind, let cursor, let failure):
    if cursor == nil, state.opening?.kind == kind, state.opening?.phase == .loading {
      return firstPageFailed(&state, failure)
    }
    guard let source = state.source, source.kind == kind, source.phase == .loading,
      source.next == cursor
    else { return [] }
    return laterPageFailed(&state, failure)

  case .retryDue(.page(let kind), let attempt):
    // Only the latest scheduled retry counts: one from before a manual retry is stale.
    if let opening = state.opening, opening.kind == kind, case .waiting = opening.phase,
      opening.retry.attempts == attempt
    {
      return loadFirstPage(&state, kind)
    }
    guard let source = state.source, source.kind == kind, case .waiting = source.phase,
      source.retry.attempts == attempt, let next = source.next
    else { return [] }
    state.source?.phase = .loading
    return [.loadPage(kind, cursor: next)]

  default:
    return []
  }
}

/// Asks (again) for the first page of a source; the pages stay as they are until it comes.
/// Failed tries at the same source go on counting, so an older scheduled retry cannot match.
func loadFirstPage(_ state: inout PlayerState, _ kind: SourceKind) -> [PlayerEffect] {
  let retry = state.opening?.kind == kind ? state.opening?.retry ?? Retry() : Retry()
  state.opening = PageSource(kind: kind, phase: .loading, retry: retry)
  // Up next is in the state already: its one page is here at once.
  if kind == .queue { return firstPageLoaded(&state, kind, SourcePage(songs: state.queue)) }
  return [.loadPage(kind, cursor: nil)]
}

/// The first page of the source being opened: its songs become the pages and the first plays.
private func firstPageLoaded(_ state: inout PlayerState, _ kind: SourceKind, _ page: SourcePage)
  -> [PlayerEffect]
{
  guard let opening = state.opening, opening.kind == kind, opening.phase == .loading else {
    return []
  }
  state.opening = nil
  // The answer may show the source to be another kind (a feed URL that gave a podcast).
  let kind = page.kind ?? kind
  if !page.choices.isEmpty {
    if case .artist(let name) = kind { showArtistChoice(&state, name: name, page.choices) }
    return []
  }
  guard !page.songs.isEmpty else {
    // Nothing to show: the pages stay as they are (or empty, saying why).
    let notes = [page.skipped > 0 ? kind.skippedNote(page.skipped) : nil, page.notReadyNote]
      .compactMap { $0 }
    let skipped = notes.isEmpty ? "" : ": " + notes.joined(separator: ", ")
    state.message = .init(.info, kind.emptyNote + skipped)
    if state.songs.isEmpty {
      state.source = PageSource(kind: kind)
      state.playback = .idle
    }
    return []
  }
  state.source = PageSource(kind: kind, next: page.next)
  state.songs = page.songs
  state.index = 0
  state.shuffleHistory = []
  state.shuffleRound = []
  var notes = [kind.title].compactMap { $0 }
  if page.hidden > 0 {
    notes.append(page.hidden == 1 ? "1 repeat hidden" : "\(page.hidden) repeats hidden")
  }
  if page.skipped > 0 { notes.append(kind.skippedNote(page.skipped)) }
  if let note = page.notReadyNote { notes.append(note) }
  state.message = notes.isEmpty ? nil : .init(.info, notes.joined(separator: " \u{00B7} "))
  if let resume = state.resumeAt {
    // A saved session: its song where it was left, paused.
    state.resumeAt = nil
    if let at = page.songs.firstIndex(where: { $0.id == resume.songID }) {
      state.index = at
      let play = playCurrent(&state)
      if let waiting = resumeLivePaused(&state, play) { return waiting + loadMoreIfNear(&state) }
      state.playback = .paused
      let position = max(0, resume.position)
      state.position = position
      return play + [.pause] + (position > 0 ? [.seek(to: position, playID: state.playID)] : [])
        + loadMoreIfNear(&state)
    }
  }
  return playCurrent(&state) + loadMoreIfNear(&state)
}

/// A later page: its new songs go at the end, without moving the page shown.
private func laterPageLoaded(
  _ state: inout PlayerState, _ kind: SourceKind, _ cursor: PageCursor, _ page: SourcePage
) -> [PlayerEffect] {
  guard let source = state.source, source.kind == kind, source.phase == .loading,
    source.next == cursor
  else { return [] }
  let known = Set(state.songs.map(\.id))
  let fresh = page.songs.filter { !known.contains($0.id) }
  state.songs += fresh
  // An empty page is the end, whatever it says of more.
  state.source = PageSource(kind: kind, next: page.songs.isEmpty ? nil : page.next)
  if case .error = state.message?.kind { state.message = nil }
  if state.playback == .finished && !fresh.isEmpty && state.canGoNext {
    // The last song had ended waiting for more: go on with the new ones.
    state.index += 1
    return playCurrent(&state) + loadMoreIfNear(&state)
  }
  return loadMoreIfNear(&state)
}

/// The first page could not be had: try again after a wait when the cause may pass, else give
/// up (kept, with its reason, while nothing else is on the pages, so `r` can ask again).
private func firstPageFailed(_ state: inout PlayerState, _ failure: Failure) -> [PlayerEffect] {
  guard var opening = state.opening else { return [] }
  let label = opening.kind.label
  let shown = !state.songs.isEmpty
  let effects = pageFailed(&opening, failure, &state.message) { wait in
    guard let wait else { return shown ? "\(failure.reason): \(label) failed" : failure.reason }
    return "\(failure.reason): \(Retry.note(wait))"
  }
  // Given up over other pages: those stay, and the source is forgotten.
  let givenUp = opening.phase == .failed(failure.reason)
  state.opening = givenUp && shown ? nil : opening
  return effects
}

/// A later page could not be had: the songs loaded stay; wait and try again when the cause may
/// pass (paging on meanwhile does not ask again), else ask again when the user pages on.
private func laterPageFailed(_ state: inout PlayerState, _ failure: Failure) -> [PlayerEffect] {
  guard var source = state.source else { return [] }
  let effects = pageFailed(&source, failure, &state.message) { wait in
    guard let wait else { return "\(failure.reason): more songs when you page again" }
    return "\(failure.reason): more songs in \(Int(wait.rounded())) s"
  }
  state.source = source
  return effects
}

/// The one rule for a failed page request of any source: a failure that may pass is counted
/// and tried again after the wait `Retry` sets; any other ends the request as failed. The
/// status line says what `message` makes of the wait (nil: no retry).
private func pageFailed(
  _ source: inout PageSource, _ failure: Failure, _ status: inout PlayerState.Message?,
  message: (Double?) -> String
) -> [PlayerEffect] {
  guard failure.isTransient else {
    source.phase = .failed(failure.reason)
    status = .init(.error, message(nil))
    return []
  }
  let wait = source.retry.failed(failure)
  source.phase = .waiting(failure.reason)
  status = .init(.error, message(wait))
  return [.after(wait, .retryDue(.page(source.kind), attempt: source.retry.attempts))]
}

/// Asks for the source's next page when the user is within its lookahead of the end; with
/// `retrying` (the user's `r`), a page waiting to be tried again is asked for now.
func loadMoreIfNear(_ state: inout PlayerState, retrying: Bool = false) -> [PlayerEffect] {
  guard let source = state.source, let next = source.next,
    state.index + source.kind.lookahead >= state.songs.count - 1
  else { return [] }
  switch source.phase {
  case .loading: return []
  case .waiting: guard retrying else { return [] }
  case .idle, .failed: break
  }
  state.source?.phase = .loading
  return [.loadPage(source.kind, cursor: next)]
}
