import Foundation
import SpotterProtocol

/// One endpoint of SPEC 5.1, resolved from a method and a path.
///
/// Resolved by hand (not by the HTTP router) because an operation inside `POST /v1/batch`
/// names its method and path as data and must land on exactly the same code as the single route.
enum APIRoute: Sendable, Equatable {
    case createWorkout
    case updateWorkout(id: String)
    case deleteWorkout(id: String)
    case listWorkouts
    case createSet
    case updateSet(id: String)
    case deleteSet(id: String)
    case listSets
    case putFavorite(exercise: String)
    case deleteFavorite(exercise: String)
    case listFavorites
    case changes
    case batch

    /// Why a method and path name no endpoint.
    enum Failure: Error, Equatable {
        case notFound
        case methodNotAllowed
    }

    /// The route as a metrics label: no ids, no user data.
    var template: String {
        switch self {
        case .createWorkout: "POST /v1/workouts"
        case .updateWorkout: "PATCH /v1/workouts/{id}"
        case .deleteWorkout: "DELETE /v1/workouts/{id}"
        case .listWorkouts: "GET /v1/workouts"
        case .createSet: "POST /v1/sets"
        case .updateSet: "PATCH /v1/sets/{id}"
        case .deleteSet: "DELETE /v1/sets/{id}"
        case .listSets: "GET /v1/sets"
        case .putFavorite: "PUT /v1/favorites/{exercise}"
        case .deleteFavorite: "DELETE /v1/favorites/{exercise}"
        case .listFavorites: "GET /v1/favorites"
        case .changes: "GET /v1/changes"
        case .batch: "POST /v1/batch"
        }
    }

    /// POST and PATCH carry an intent that must not apply twice: they need an Idempotency-Key.
    var requiresIdempotencyKey: Bool {
        switch self {
        case .createWorkout, .updateWorkout, .createSet, .updateSet: true
        default: false
        }
    }

    var takesJSONBody: Bool { requiresIdempotencyKey || self == .batch }

    /// A write on an entity route: what an operation inside `POST /v1/batch` may be (SPEC 5.1).
    var isEntityWrite: Bool { isMutating && self != .batch }

    /// The path in its one canonical spelling (ids as lower-case UUIDs), whatever case or
    /// spelling the request used: what idempotency scopes and fingerprints are computed over,
    /// so `/v1/sets/ABC…` and `/v1/sets/abc…` are one resource and one key scope (SPEC 5.2).
    var canonicalPath: String {
        switch self {
        case .createWorkout, .listWorkouts: "/v1/workouts"
        case .updateWorkout(let id), .deleteWorkout(let id): "/v1/workouts/\(id)"
        case .createSet, .listSets: "/v1/sets"
        case .updateSet(let id), .deleteSet(let id): "/v1/sets/\(id)"
        case .putFavorite(let exercise), .deleteFavorite(let exercise):
            Route.favorite(exercise)
        case .listFavorites: "/v1/favorites"
        case .changes: "/v1/changes"
        case .batch: "/v1/batch"
        }
    }

    var isMutating: Bool {
        switch self {
        case .listWorkouts, .listSets, .listFavorites, .changes: false
        default: true
        }
    }

    /// The methods `path` answers, for the `Allow` header of a 405.
    static func allowedMethods(path: String) -> String {
        ["GET", "POST", "PUT", "PATCH", "DELETE"].filter {
            (try? resolve(method: $0, path: path).get()) != nil
        }.joined(separator: ", ")
    }

    /// Every route, once (the sample ids are placeholders): what `openapi.yaml` must describe.
    static let all: [APIRoute] = [
        .createWorkout, .updateWorkout(id: ""), .deleteWorkout(id: ""), .listWorkouts, .createSet,
        .updateSet(id: ""), .deleteSet(id: ""), .listSets, .putFavorite(exercise: ""), .deleteFavorite(exercise: ""),
        .listFavorites, .changes, .batch,
    ]

    /// Resolves `path` (without its query); ids in the path that are not UUIDs name nothing (404).
    static func resolve(method: String, path: String) -> Result<APIRoute, Failure> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard segments.count >= 3, segments[0].isEmpty, segments[1] == "v1" else { return .failure(.notFound) }
        let method = method.uppercased()
        func pick(_ table: [String: APIRoute]) -> Result<APIRoute, Failure> {
            table[method].map { .success($0) } ?? .failure(.methodNotAllowed)
        }
        switch (segments[2], segments.count) {
        case ("workouts", 3): return pick(["POST": .createWorkout, "GET": .listWorkouts])
        case ("sets", 3): return pick(["POST": .createSet, "GET": .listSets])
        case ("favorites", 3): return pick(["GET": .listFavorites])
        case ("changes", 3): return pick(["GET": .changes])
        case ("batch", 3): return pick(["POST": .batch])
        case ("workouts", 4):
            guard let id = UUID(uuidString: segments[3])?.wireString else { return .failure(.notFound) }
            return pick(["PATCH": .updateWorkout(id: id), "DELETE": .deleteWorkout(id: id)])
        case ("sets", 4):
            guard let id = UUID(uuidString: segments[3])?.wireString else { return .failure(.notFound) }
            return pick(["PATCH": .updateSet(id: id), "DELETE": .deleteSet(id: id)])
        case ("favorites", 4):
            guard let exercise = segments[3].removingPercentEncoding, !segments[3].isEmpty else {
                return .failure(.notFound)
            }
            return pick(["PUT": .putFavorite(exercise: exercise), "DELETE": .deleteFavorite(exercise: exercise)])
        default:
            return .failure(.notFound)
        }
    }
}

/// Splits "path?query" and reads query parameters (percent-decoded, `+` as space).
struct PathAndQuery {
    var path: String
    var query: [String: String]

    init(_ target: String) {
        guard let mark = target.firstIndex(of: "?") else {
            path = target
            query = [:]
            return
        }
        path = String(target[..<mark])
        var parameters: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decode(parts[0])
            if parameters[name] == nil { parameters[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        query = parameters
    }
}
