import Foundation
import HTTPTypes
import Hummingbird
import SpotterProtocol

/// One endpoint of the sync API (openapi.yaml), as Hummingbird's router resolved it from a method and a path.
///
/// `all` is the one route table: `ServerRouter` registers it on the HTTP router and on the
/// router that resolves the operations inside `POST /v1/batch`, so an operation lands on the
/// same endpoint its single route would.
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
    case createRoutine
    case updateRoutine(id: String)
    case deleteRoutine(id: String)
    case listRoutines
    case createBodyWeight
    case updateBodyWeight(id: String)
    case deleteBodyWeight(id: String)
    case listBodyWeights
    case changes
    case batch

    /// The method this endpoint answers.
    var method: HTTPRequest.Method {
        switch self {
        case .createWorkout, .createSet, .createRoutine, .createBodyWeight, .batch: .post
        case .updateWorkout, .updateSet, .updateRoutine, .updateBodyWeight: .patch
        case .deleteWorkout, .deleteSet, .deleteFavorite, .deleteRoutine, .deleteBodyWeight: .delete
        case .listWorkouts, .listSets, .listFavorites, .listRoutines, .listBodyWeights, .changes: .get
        case .putFavorite: .put
        }
    }

    /// The path as documented in `openapi.yaml`, parameters in braces.
    var pathTemplate: String {
        switch self {
        case .createWorkout, .listWorkouts: "/v1/workouts"
        case .updateWorkout, .deleteWorkout: "/v1/workouts/{id}"
        case .createSet, .listSets: "/v1/sets"
        case .updateSet, .deleteSet: "/v1/sets/{id}"
        case .putFavorite, .deleteFavorite: "/v1/favorites/{exercise}"
        case .listFavorites: "/v1/favorites"
        case .createRoutine, .listRoutines: "/v1/routines"
        case .updateRoutine, .deleteRoutine: "/v1/routines/{id}"
        case .createBodyWeight, .listBodyWeights: "/v1/body-weights"
        case .updateBodyWeight, .deleteBodyWeight: "/v1/body-weights/{id}"
        case .changes: "/v1/changes"
        case .batch: "/v1/batch"
        }
    }

    /// The path as the router matches it (`{id}` becomes the capture `:id`).
    var routerPath: RouterPath {
        RouterPath(pathTemplate.replacingOccurrences(of: "{", with: ":").replacingOccurrences(of: "}", with: ""))
    }

    /// The route as a metrics label: no ids, no user data.
    var template: String { "\(method.rawValue) \(pathTemplate)" }

    /// This endpoint with the path parameters the router captured; nil when they name nothing
    /// (an id that is not a UUID, an exercise that does not percent-decode): a 404, like an unknown path.
    func resolved(with parameters: Parameters) -> APIRoute? {
        func uuid() -> String? { parameters.get("id").flatMap(UUID.init(uuidString:))?.wireString }
        func exercise() -> String? {
            guard let raw = parameters.get("exercise"), !raw.isEmpty else { return nil }
            return raw.removingPercentEncoding
        }
        switch self {
        case .updateWorkout: return uuid().map { .updateWorkout(id: $0) }
        case .deleteWorkout: return uuid().map { .deleteWorkout(id: $0) }
        case .updateSet: return uuid().map { .updateSet(id: $0) }
        case .deleteSet: return uuid().map { .deleteSet(id: $0) }
        case .putFavorite: return exercise().map { .putFavorite(exercise: $0) }
        case .deleteFavorite: return exercise().map { .deleteFavorite(exercise: $0) }
        case .updateRoutine: return uuid().map { .updateRoutine(id: $0) }
        case .deleteRoutine: return uuid().map { .deleteRoutine(id: $0) }
        case .updateBodyWeight: return uuid().map { .updateBodyWeight(id: $0) }
        case .deleteBodyWeight: return uuid().map { .deleteBodyWeight(id: $0) }
        case .createWorkout, .listWorkouts, .createSet, .listSets, .listFavorites, .createRoutine, .listRoutines,
            .createBodyWeight, .listBodyWeights, .changes, .batch:
            return self
        }
    }

    /// POST and PATCH carry an intent that must not apply twice: they need an Idempotency-Key.
    var requiresIdempotencyKey: Bool {
        switch self {
        case .createWorkout, .updateWorkout, .createSet, .updateSet, .createRoutine, .updateRoutine,
            .createBodyWeight, .updateBodyWeight:
            true
        default: false
        }
    }

    var takesJSONBody: Bool { requiresIdempotencyKey || self == .batch }

    /// A delete of a workout, set, routine or weigh-in may carry a JSON object saying when it was made and
    /// what the device had seen (`EditClockField`), so the server can tell an edit it overrides
    /// unseen; without one it deletes as before.
    var takesOptionalJSONBody: Bool {
        switch self {
        case .deleteWorkout, .deleteSet, .deleteRoutine, .deleteBodyWeight: true
        default: false
        }
    }

    /// A write on an entity route: what an operation inside `POST /v1/batch` may be (see openapi.yaml).
    var isEntityWrite: Bool { isMutating && self != .batch }

    /// The path in its one canonical spelling (ids as lower-case UUIDs), whatever case or
    /// spelling the request used: what idempotency scopes and fingerprints are computed over,
    /// so `/v1/sets/ABC…` and `/v1/sets/abc…` are one resource and one key scope.
    var canonicalPath: String {
        switch self {
        case .createWorkout, .listWorkouts: "/v1/workouts"
        case .updateWorkout(let id), .deleteWorkout(let id): "/v1/workouts/\(id)"
        case .createSet, .listSets: "/v1/sets"
        case .updateSet(let id), .deleteSet(let id): "/v1/sets/\(id)"
        case .putFavorite(let exercise), .deleteFavorite(let exercise):
            Route.favorite(exercise)
        case .listFavorites: "/v1/favorites"
        case .createRoutine, .listRoutines: Route.routines
        case .updateRoutine(let id), .deleteRoutine(let id): "\(Route.routines)/\(id)"
        case .createBodyWeight, .listBodyWeights: Route.bodyWeights
        case .updateBodyWeight(let id), .deleteBodyWeight(let id): "\(Route.bodyWeights)/\(id)"
        case .changes: "/v1/changes"
        case .batch: "/v1/batch"
        }
    }

    var isMutating: Bool {
        switch self {
        case .listWorkouts, .listSets, .listFavorites, .listRoutines, .listBodyWeights, .changes: false
        default: true
        }
    }

    /// Every route, once (the sample ids are placeholders): the route table the routers are built
    /// from, and what `openapi.yaml` must describe.
    static let all: [APIRoute] = [
        .createWorkout, .updateWorkout(id: ""), .deleteWorkout(id: ""), .listWorkouts, .createSet,
        .updateSet(id: ""), .deleteSet(id: ""), .listSets, .putFavorite(exercise: ""), .deleteFavorite(exercise: ""),
        .listFavorites, .createRoutine, .updateRoutine(id: ""), .deleteRoutine(id: ""), .listRoutines,
        .createBodyWeight, .updateBodyWeight(id: ""), .deleteBodyWeight(id: ""), .listBodyWeights, .changes, .batch,
    ]
}
