import Foundation

/// The data files Spotter ships (this folder), reachable at run time from any module.
public enum SpotterAssets {
    /// `exercises.json`: the seeded exercise catalogue.
    public static var exercisesURL: URL? {
        Bundle.module.url(forResource: "exercises", withExtension: "json")
    }
}
