/// Where a feed page stands in the whole feed, as its envelope says.
public struct FeedPaging: Equatable, Sendable {
  /// The number of the page that arrived (1-based, as the feed counts).
  public var page: Int
  public var pageSize: Int?
  public var totalPages: Int?

  public init(page: Int, pageSize: Int? = nil, totalPages: Int? = nil) {
    self.page = page
    self.pageSize = pageSize
    self.totalPages = totalPages
  }

  /// The page after this one, unless this was the last.
  public var nextPage: Int? {
    if let totalPages, page >= totalPages { return nil }
    return page + 1
  }
}
