import Foundation
import RiffleApp
import RiffleCore
import RiffleDesktop

/// The session bus for the whole run, once the desktop integration has started.
@MainActor
private var liveDesktop: (bus: SessionBus, mpris: MediaPlayerService, notifier: SongNotifier?)?

/// Connects the player to the desktop: MPRIS 2 (media keys, `playerctl`) and, when the config
/// asks, a notification per song. Without a session bus this does nothing and says nothing.
@MainActor
func startDesktop(model: PlayerViewModel, notifications: Bool) {
  let bus = SessionBus()
  let mpris = MediaPlayerService(bus: bus, state: model.state) { [weak model] command in
    DispatchQueue.main.async {
      MainActor.assumeIsolated {
        guard let model else { return }
        for action in command.actions(in: model.state) { model.send(action) }
      }
    }
  }
  let notifier = notifications ? SongNotifier(bus: bus) : nil
  model.onStateChange = { effects, state in
    mpris.update(state, effects: effects)
    notifier?.update(state)
  }
  liveDesktop = (bus, mpris, notifier)
}
