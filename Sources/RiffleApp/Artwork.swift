import Foundation
import RiffleAPI
import RiffleCore
import RiffleTUI

/// Fetches, decodes and renders covers off the main queue, and hands the page ready cells.
///
/// The page asks for a song's cover at the screen's size; a cover not ready yet starts its
/// work (fetch through the API client, decode, chafa) and the page draws the gradient meanwhile.
/// When cells are ready `onReady` tells the view model, which fades them in. The neighbours of
/// the current page are prepared too, so paging shows art at once.
@MainActor
public final class Artwork {
  /// Fetches image bytes (the live value goes through the shared HTTP client and disk cache).
  public typealias Loader = @Sendable (URL, @escaping @Sendable (Data?) -> Void) -> Void

  private let load: Loader
  private let mode: ColorMode
  /// Rendered covers for paging back: the last 12 pages draw at once (under 5 MB at 200x60).
  private let cache = CoverCache(capacity: 12)
  /// Decoded images kept to render again at another size (a resize): the current page's and its
  /// neighbours'. An image is large (a 600x600 cover is 1.4 MB of RGBA) where its cells are not
  /// (60 KB at 80x24), so the cells are what is kept for paging back; an image dropped is
  /// fetched again from the disk cache if it is needed.
  public static let keptImages = 3
  private var images: [String: RGBAImage] = [:]
  private var imageOrder: [String] = []
  private var fetching: Set<String> = []
  private var unavailable: Set<String> = []
  private var rendering: Set<CoverKey> = []
  private let work = DispatchQueue(label: "riffle.artwork", qos: .userInitiated)
  /// A song's cover cells became ready.
  public var onReady: ((String) -> Void)?
  /// For a terminal that shows pictures: the size of a cell in pixels now. Covers then come
  /// with a `CoverPicture` beside their cells.
  private let cellPixels: (() -> (width: Int, height: Int))?
  private let pictures: PictureProtocol

  public init(
    mode: ColorMode, pictures: PictureProtocol = .symbols,
    cellPixels: (() -> (width: Int, height: Int))? = nil, load: @escaping Loader
  ) {
    self.mode = mode
    self.pictures = cellPixels == nil ? .symbols : pictures
    self.cellPixels = cellPixels
    self.load = load
  }

  /// The cover of `song` at this size, if ready; otherwise starts the work and returns nil.
  public func cells(for song: Song, width: Int, height: Int) -> CoverCells? {
    guard width > 0, height > 0 else { return nil }
    let key = CoverKey(songID: song.id, width: width, height: height, mode: mode)
    if let cells = cache.cells(for: key) { return cells }
    prepare(song, width: width, height: height)
    return nil
  }

  /// Starts whatever `song` needs to have its cells ready at this size.
  public func prepare(_ song: Song, width: Int, height: Int) {
    let key = CoverKey(songID: song.id, width: width, height: height, mode: mode)
    guard !cache.contains(key), !rendering.contains(key) else { return }
    if let image = images[song.id] {
      imageOrder.removeAll { $0 == song.id }
      imageOrder.append(song.id)
      render(image, key: key)
    } else if unavailable.contains(song.id) || song.imageURL == nil {
      // No cover to be had: a generated one, still drawn through chafa so it looks of a piece.
      rendering.insert(key)
      let mode = self.mode
      work.async {
        let cells = CoverArt.placeholder(
          seed: song.id, width: key.width, height: key.height, mode: mode)
        DispatchQueue.main.async { MainActor.assumeIsolated { self.finished(cells, key: key) } }
      }
    } else if let url = song.imageURL, !fetching.contains(song.id) {
      fetching.insert(song.id)
      // Asked and decoded on the work queue: a cover already on disk answers at once, and its
      // read and decode would otherwise run on the main queue, inside a page turn. An answer
      // from a transfer is decoded there too, not on the transfer thread.
      let load = self.load
      let work = self.work
      work.async {
        load(url) { data in
          work.async {
            let image = data.flatMap { try? ImageDecoder.decode($0) }
            DispatchQueue.main.async {
              MainActor.assumeIsolated {
                self.fetched(image, song: song, width: width, height: height)
              }
            }
          }
        }
      }
    }
  }

  private func fetched(_ image: RGBAImage?, song: Song, width: Int, height: Int) {
    fetching.remove(song.id)
    if let image {
      images[song.id] = image
      imageOrder.removeAll { $0 == song.id }
      imageOrder.append(song.id)
      while imageOrder.count > Self.keptImages { images[imageOrder.removeFirst()] = nil }
    } else {
      unavailable.insert(song.id)
    }
    prepare(song, width: width, height: height)
  }

  private func render(_ image: RGBAImage, key: CoverKey) {
    rendering.insert(key)
    let mode = self.mode
    let cellPixels = self.cellPixels?()
    let pictures = self.pictures
    work.async {
      var cells = Self.withBand(
        CoverArt.render(image, width: key.width, height: key.height, mode: mode))
      if let cellPixels {
        cells.picture = Self.picture(
          of: image, key: key, protocol: pictures, cellPixels: cellPixels)
      }
      DispatchQueue.main.async { MainActor.assumeIsolated { self.finished(cells, key: key) } }
    }
  }

  /// The picture a protocol shows: kitty's under the whole page (the band darkened in it),
  /// sixel's and iTerm2's between the header row and the band.
  nonisolated static func picture(
    of image: RGBAImage, key: CoverKey, protocol: PictureProtocol,
    cellPixels: (width: Int, height: Int)
  ) -> CoverPicture? {
    let name = "\(key.songID) \(key.width)x\(key.height)"
    switch `protocol` {
    case .symbols: return nil
    case .kitty:
      return CoverPicture.make(
        image, key: name, columns: key.width, rows: key.height, cellPixels: cellPixels,
        darkRows: PageView.bandHeight, darkening: PageView.bandDarkening)
    case .sixel:
      return CoverPicture.makeSixel(
        image, key: name, columns: key.width, pageRows: key.height,
        bandRows: PageView.bandHeight, cellPixels: cellPixels)
    case .iterm:
      return CoverPicture.make(
        image, key: name + " iterm", row: 1, columns: key.width,
        rows: key.height - PageView.bandHeight - 1, cellPixels: cellPixels, darkRows: 0,
        darkening: 0)
    }
  }

  /// Darkens the rows the text band covers once, here, not on every frame.
  nonisolated static func withBand(_ cells: CoverCells) -> CoverCells {
    CoverArt.darkened(
      cells, by: PageView.bandDarkening,
      rows: max(0, cells.height - PageView.bandHeight)..<cells.height)
  }

  private func finished(_ cells: CoverCells, key: CoverKey) {
    rendering.remove(key)
    cache.insert(cells, for: key)
    onReady?(key.songID)
  }

  /// Covers through the shared client, kept on disk so paging back offline still shows them.
  public static func liveLoader(client: HTTPClient, cache: DiskCache) -> Loader {
    return { url, done in
      if let file = cache.file(for: url), let data = try? Data(contentsOf: file) {
        done(data)
        return
      }
      client.fetch(HTTPRequest(url: url, maxBytes: 10_000_000)) { result in
        guard case .success(let response) = result else { return done(nil) }
        if !url.isFileURL { cache.store(response.body, for: url) }
        done(response.body)
      }
    }
  }
}
