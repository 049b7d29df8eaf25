import Foundation

/// A routine's planned exercises merged three ways, row by row and field by field: the list the
/// edit was made on (its base), the list the edit sends (local), and the list stored (remote).
/// What only one side changed keeps that change; a field both changed keeps the side with the
/// later stamp, and the other value is a conflict; a row one side removed and the other changed
/// is removed (a delete wins over an edit) and the edit is a conflict.
///
/// Exercises are told apart by name (a lift appears once in a routine), planned sets by their
/// place in their exercise. Conflicts name the field by path: `exercises/Squat (Barbell)/sets/1/reps`
/// or `exercises/Squat (Barbell)/notes`, and a removed row by its own path.
public enum RoutineMerge {
    /// The merged list and what it overrode (the conflict's `field` is the path).
    public struct Result: Sendable, Equatable {
        public var exercises: JSONValue
        public var conflicts: [FieldMerge.FieldConflict]
    }

    public static let exercisesField = "exercises"

    /// - Parameters:
    ///   - localWins: whether the edit's stamp is later than the stored list's last write.
    public static func merge(
        base: JSONValue, local: JSONValue, remote: JSONValue, localStamp: ClockStamp, remoteStamp: ClockStamp
    ) -> Result {
        var merger = Merger(localWins: localStamp > remoteStamp, localStamp: localStamp, remoteStamp: remoteStamp)
        let merged = merger.exercises(
            base: base.arrayValue ?? [], local: local.arrayValue ?? [], remote: remote.arrayValue ?? [])
        return Result(exercises: .array(merged), conflicts: merger.conflicts)
    }

    /// The exercises with the value at `path` (a conflict's field) set to `value`; nil when the
    /// path names nothing in them (the row is gone).
    public static func setting(_ path: String, to value: JSONValue, in exercises: JSONValue) -> JSONValue? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, parts[0] == exercisesField, var list = exercises.arrayValue,
            let index = list.firstIndex(where: { key(of: $0) == parts[1].lowercased() })
        else { return nil }
        guard var exercise = list[index].objectValue else { return nil }
        if parts.count == 3 {
            exercise[parts[2]] = value
        } else if parts.count == 5, parts[2] == "sets", let row = Int(parts[3]),
            var sets = exercise["sets"]?.arrayValue, sets.indices.contains(row), var planned = sets[row].objectValue
        {
            planned[parts[4]] = value
            sets[row] = .object(planned)
            exercise["sets"] = .array(sets)
        } else {
            return nil
        }
        list[index] = .object(exercise)
        return .array(list)
    }

    /// A routine row's path as a person reads it: "Squat (Barbell) set 2 reps".
    public static func readable(_ path: String) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == exercisesField, parts.count >= 2 else { return path }
        var text = parts[1]
        if parts.count >= 4, parts[2] == "sets", let row = Int(parts[3]) { text += " set \(row + 1)" }
        if let last = parts.last, parts.count == 3 || parts.count == 5 { text += " \(last == "sets" ? "sets" : last)" }
        return text
    }

    static func key(of exercise: JSONValue) -> String? {
        exercise.objectValue?["exercise"]?.stringValue?.lowercased()
    }

    private struct Merger {
        let localWins: Bool
        let localStamp: ClockStamp
        let remoteStamp: ClockStamp
        var conflicts: [FieldMerge.FieldConflict] = []

        mutating func conflict(_ path: String, kept: JSONValue?, overridden: JSONValue?, keptIsLocal: Bool) {
            conflicts.append(
                FieldMerge.FieldConflict(
                    field: path, kept: kept ?? .null, overridden: overridden ?? .null,
                    keptStamp: keptIsLocal ? localStamp : remoteStamp,
                    overriddenStamp: keptIsLocal ? remoteStamp : localStamp))
        }

        /// One value three ways; nil is "not there" (a removed row).
        mutating func value(_ base: JSONValue?, _ local: JSONValue?, _ remote: JSONValue?, path: String) -> JSONValue? {
            if local == base { return remote }
            if remote == base || local == remote { return local }
            // Both changed it, differently. A removal wins over an edit.
            guard let local else {
                conflict(path, kept: nil, overridden: remote, keptIsLocal: true)
                return nil
            }
            guard let remote else {
                conflict(path, kept: nil, overridden: local, keptIsLocal: false)
                return nil
            }
            if case .object(let localFields) = local, case .object(let remoteFields) = remote {
                return .object(object(base?.objectValue, localFields, remoteFields, path: path))
            }
            conflict(
                path, kept: localWins ? local : remote, overridden: localWins ? remote : local, keptIsLocal: localWins)
            return localWins ? local : remote
        }

        mutating func object(
            _ base: [String: JSONValue]?, _ local: [String: JSONValue], _ remote: [String: JSONValue], path: String
        ) -> [String: JSONValue] {
            var merged: [String: JSONValue] = [:]
            for key in Set(local.keys).union(remote.keys).union(base?.keys ?? [:].keys).sorted() {
                let child = "\(path)/\(key)"
                if key == "sets" {
                    merged[key] = .array(
                        rows(
                            base?[key]?.arrayValue ?? [], local[key]?.arrayValue ?? [], remote[key]?.arrayValue ?? [],
                            path: child))
                } else if let value = value(base?[key], local[key], remote[key], path: child) {
                    merged[key] = value
                }
            }
            return merged
        }

        /// Planned sets, by place.
        mutating func rows(
            _ base: [JSONValue], _ local: [JSONValue], _ remote: [JSONValue], path: String
        ) -> [JSONValue] {
            var merged: [JSONValue] = []
            for index in 0..<max(base.count, local.count, remote.count) {
                func at(_ list: [JSONValue]) -> JSONValue? { list.indices.contains(index) ? list[index] : nil }
                if let row = value(at(base), at(local), at(remote), path: "\(path)/\(index)") { merged.append(row) }
            }
            return merged
        }

        /// Exercises, by name: the local order, then what only the stored list added.
        mutating func exercises(base: [JSONValue], local: [JSONValue], remote: [JSONValue]) -> [JSONValue] {
            func index(_ list: [JSONValue]) -> [String: JSONValue] {
                var byKey: [String: JSONValue] = [:]
                for item in list { if let key = key(of: item), byKey[key] == nil { byKey[key] = item } }
                return byKey
            }
            let baseByKey = index(base)
            let localByKey = index(local)
            let remoteByKey = index(remote)
            var order: [String] = []
            for item in local + remote {
                if let key = key(of: item), !order.contains(key) { order.append(key) }
            }
            var merged: [JSONValue] = []
            for key in order {
                let name =
                    (localByKey[key] ?? remoteByKey[key]).flatMap { $0.objectValue?["exercise"]?.stringValue } ?? key
                if let exercise = value(
                    baseByKey[key], localByKey[key], remoteByKey[key], path: "\(exercisesField)/\(name)")
                {
                    merged.append(exercise)
                }
            }
            return merged
        }
    }
}

extension JSONValue {
    /// The elements of an array; nil for anything else.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
