import Foundation

/// The rules for the search prompt and for queries (a search, an artist's top songs) whose
/// results replace the pages. Part of `reduce`.
func reduceQuery(_ state: inout PlayerState, _ action: PlayerAction) -> [PlayerEffect] {
  switch action {
  case .openSearch:
    state.overlay = .search
    state.search = SearchPrompt()
    return []

  case .editSearch(let edit):
    guard state.search != nil else { return [] }
    state.search?.apply(edit, history: state.searchHistory)
    return []

  case .submitSearch:
    guard let prompt = state.search else { return [] }
    closePrompt(&state)
    let term = prompt.text.trimmingCharacters(in: .whitespaces)
    guard !term.isEmpty else { return [] }
    state.searchHistory = state.searchHistory.recording(term)
    return [.saveSearchHistory(state.searchHistory)] + startQuery(&state, .search(term))

  case .cancelSearch:
    if state.overlay == .search {
      closePrompt(&state)
    } else if let request = state.request {
      // Esc with the prompt closed drops a query still on its way; its results are ignored.
      state.request = nil
      if state.songs.isEmpty, case .failed = state.feed { state.feed = .loaded }
      state.message = .init(.info, "Stopped: \(request.query.label)")
    }
    return []

  case .showArtist:
    guard let song = state.currentSong else { return [] }
    let name = song.displayName.trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty else {
      state.notice = "This song does not name its artist"
      return []
    }
    return startQuery(&state, .artist(name))

  case .runQuery(let query):
    return startQuery(&state, query)

  case .queryLoaded(let query, let songs, let hidden, let skipped, let received):
    guard state.request?.query == query else { return [] }
    state.request = nil
    guard !songs.isEmpty else {
      let note = skipped > 0 ? " with a preview to play" : ""
      state.message = .init(.info, query.emptyNote + note)
      if state.songs.isEmpty { state.feed = .loaded }
      return []
    }
    state.query = query
    state.songs = songs
    state.index = 0
    state.paging = nil
    state.feed = .loaded
    state.queryPaging =
      query.pages
      ? .after(offset: 0, received: received, limit: QueryPaging.batchSize) : nil
    state.message = .init(.info, resultsNote(query, hidden: hidden, skipped: skipped))
    return playCurrent(&state) + loadMoreIfNear(&state)

  case .queryFailed(let query, let reason, let retry, let retryAfter):
    guard var request = state.request, request.query == query else { return [] }
    guard retry else {
      state.request = nil
      state.message = .init(.error, "\(reason): \(query.label) failed")
      if state.songs.isEmpty { state.feed = .failed(reason) }
      return []
    }
    request.attempts += 1
    request.isWaiting = true
    state.request = request
    let delay = retryDelay(attempt: request.attempts, serverAsked: retryAfter)
    state.message = .init(.error, "\(reason): retrying in \(Int(delay.rounded())) s")
    if state.songs.isEmpty { state.feed = .failed(reason) }
    return [.scheduleQueryRetry(after: delay, attempt: request.attempts)]

  case .retryQuery(let attempt):
    // Only the latest scheduled retry counts: one from before a manual retry is stale.
    guard let request = state.request, request.isWaiting, request.attempts == attempt else {
      return []
    }
    return runRequest(&state, request)

  case .queryPageLoaded(let query, let offset, let songs, let received):
    guard state.query == query, let paging = state.queryPaging, paging.nextOffset == offset
    else { return [] }
    let known = Set(state.songs.map(\.id))
    let fresh = songs.filter { !known.contains($0.id) }
    state.songs += fresh
    state.queryPaging = .after(offset: offset, received: received, limit: paging.limit)
    if case .error = state.message?.kind { state.message = nil }
    if state.playback == .finished && !fresh.isEmpty && state.canGoNext {
      // The last result had ended waiting for more: go on with the new ones.
      state.index += 1
      return playCurrent(&state) + loadMoreIfNear(&state)
    }
    return loadMoreIfNear(&state)

  case .queryPageFailed(let query, let reason, let retry, let retryAfter):
    guard state.query == query, var paging = state.queryPaging, paging.isLoading else {
      return []
    }
    guard retry else {
      paging.isLoading = false
      state.queryPaging = paging
      state.message = .init(.error, "\(reason): more songs when you page again")
      return []
    }
    // Backing off: the batch stays "loading" so paging on does not ask again before the wait.
    paging.attempts += 1
    state.queryPaging = paging
    let delay = retryDelay(attempt: paging.attempts, serverAsked: retryAfter)
    state.message = .init(.error, "\(reason): more songs in \(Int(delay.rounded())) s")
    return [.scheduleQueryPageRetry(after: delay, attempt: paging.attempts)]

  case .retryQueryPage(let attempt):
    guard let query = state.query, let paging = state.queryPaging, paging.isLoading,
      paging.attempts == attempt, let offset = paging.nextOffset
    else { return [] }
    return [.runQuery(query, offset: offset, limit: paging.limit)]

  default:
    return []
  }
}

/// Sends a query off; its results replace the pages when they come.
private func startQuery(_ state: inout PlayerState, _ query: SongQuery) -> [PlayerEffect] {
  runRequest(&state, QueryRequest(query: query))
}

/// Asks (again) for the first results of a request.
func runRequest(_ state: inout PlayerState, _ request: QueryRequest) -> [PlayerEffect] {
  var request = request
  request.isWaiting = false
  state.request = request
  if case .error = state.message?.kind { state.message = nil }
  if state.songs.isEmpty { state.feed = .loading }
  return [.runQuery(request.query, offset: 0, limit: firstBatch(request.query))]
}

/// Results asked for at first: a batch for searches, every top song for an artist.
func firstBatch(_ query: SongQuery) -> Int {
  query.pages ? QueryPaging.batchSize : artistSongLimit
}

/// An artist's songs asked for at once, before repeats are dropped.
let artistSongLimit = 100

/// Asks for the next batch of results when the user is within `QueryPaging.lookahead` pages
/// of the end.
func loadMoreResultsIfNear(_ state: inout PlayerState) -> [PlayerEffect] {
  guard let query = state.query, let paging = state.queryPaging, !paging.isLoading,
    let offset = paging.nextOffset, state.index + QueryPaging.lookahead >= state.songs.count - 1
  else { return [] }
  state.queryPaging?.isLoading = true
  return [.runQuery(query, offset: offset, limit: paging.limit)]
}

private func closePrompt(_ state: inout PlayerState) {
  state.search = nil
  if state.overlay == .search { state.overlay = nil }
}

private func resultsNote(_ query: SongQuery, hidden: Int, skipped: Int) -> String {
  var parts = [query.resultsTitle]
  if hidden > 0 { parts.append(hidden == 1 ? "1 repeat hidden" : "\(hidden) repeats hidden") }
  if skipped > 0 {
    parts.append(skipped == 1 ? "1 without a preview" : "\(skipped) without a preview")
  }
  return parts.joined(separator: " · ")
}
