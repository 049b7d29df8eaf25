import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// `openapi.yaml` at the repository root and the routes the server answers agree, both ways.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    static func documentText() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
    }

    /// "METHOD /path/{param}" for every operation in the document.
    static func documentedOperations() throws -> Set<String> {
        let text = try documentText()
        var operations: Set<String> = []
        var inPaths = false
        var path: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            guard inPaths else { continue }
            if !line.isEmpty, !line.hasPrefix(" ") { break }  // the next top-level key ends `paths`
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
                if methods.contains(key) { operations.insert("\(key) \(path)") }
            }
        }
        return operations
    }

    @Test("every route the server has is in openapi.yaml, and nothing else is")
    func documentListsExactlyTheRoutes() throws {
        let documented = try Self.documentedOperations()
        let served = Set(
            APIRoute.all.map(\.template) + ["GET \(Route.healthz)", "GET \(Route.metrics)", "GET \(Route.me)"])
        #expect(
            documented == served,
            "only in the document: \(documented.subtracting(served)); only served: \(served.subtracting(documented))")
    }

    @Test("every documented path answers its documented methods and 405 (with Allow) to the others")
    func serverAnswersWhatTheDocumentSays() async throws {
        let documented = try Self.documentedOperations()
        let paths = Set(documented.map { String($0.split(separator: " ")[1]) })
        let server = try await TestServer.start()
        try await stopping(server) { server in
            for template in paths.sorted() {
                let concrete = template.replacingOccurrences(of: "{id}", with: UUID().wireString)
                    .replacingOccurrences(of: "{exercise}", with: "Squat")
                let allowed = Self.methods.filter { documented.contains("\($0) \(template)") }
                for method in Self.methods {
                    let response = try await server.send(
                        .init(rawValue: method), concrete, body: method == "GET" || method == "DELETE" ? nil : "{}",
                        key: UUID().uuidString)
                    let routeMissing =
                        response.status == 405
                        || (response.status == 404 && response.text.contains("no such resource"))
                    if allowed.contains(method) {
                        #expect(!routeMissing, "\(method) \(template) is documented but answered \(response.status)")
                    } else {
                        #expect(
                            response.status == 405,
                            "\(method) \(template) is not documented but answered \(response.status)")
                        #expect(response.headers.first(name: "Allow") == allowed.joined(separator: ", "))
                        #expect(response.contentType == "application/problem+json")
                    }
                }
            }
        }
    }

    /// A schema of `components/schemas` as the document writes it: the names under its own
    /// `properties`, and its `required` list (flow style, as the document spells every list).
    static func schema(_ name: String) throws -> (properties: [String], required: [String]) {
        let lines = try documentText().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let schemas = lines.firstIndex(of: "  schemas:"),
            let start = lines[schemas...].firstIndex(of: "    \(name):")
        else { throw TestFailure("no schema \(name)") }
        var properties: [String] = []
        var required = ""
        var inProperties = false
        var inRequired = false
        for line in lines[(start + 1)...] {
            let indent = line.prefix { $0 == " " }.count
            if !line.isEmpty, indent <= 4 { break }
            if inRequired {
                required += line
                inRequired = !line.contains("]")
                continue
            }
            if indent == 6 {
                inProperties = line == "      properties:"
                if line.hasPrefix("      required:") {
                    required = String(line.dropFirst("      required:".count))
                    inRequired = !line.contains("]")
                }
            } else if inProperties, indent == 8, line.hasSuffix(":") {
                properties.append(line.trimmingCharacters(in: .whitespaces).dropLast().description)
            }
        }
        let names = required.trimmingCharacters(in: .whitespaces).trimmingCharacters(
            in: CharacterSet(charactersIn: "[]")
        )
        .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return (properties, names)
    }

    /// An entity's schema as its columns define it: every field, the server's stamp, and required
    /// exactly what may not be null.
    static func expectEntitySchema<Column: EntityColumn>(
        _ name: String, _: Column.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let documented = try schema(name)
        let stamp = ServerStampColumn.names
        #expect(documented.properties == Column.names + stamp, "\(name)'s properties", sourceLocation: sourceLocation)
        let required = Column.allCases.filter { !$0.isOptional }.map(\.name) + stamp
        #expect(Set(documented.required) == Set(required), "\(name)'s required fields", sourceLocation: sourceLocation)
    }

    @Test("the entity schemas in openapi.yaml name exactly the entities' columns and the server's stamp")
    func entitySchemasFollowTheColumns() throws {
        try Self.expectEntitySchema("Workout", Workout.Column.self)
        try Self.expectEntitySchema("Set", WorkoutSet.Column.self)
        try Self.expectEntitySchema("BodyWeight", BodyWeight.Column.self)
        // What a weigh-in's create and update may send: its fields but the id (which the create's
        // own part and the path carry).
        #expect(Set(try Self.schema("BodyWeightFields").properties) == Set(BodyWeight.Column.names).subtracting(["id"]))
        // The feed carries every synced entity but favorites (a set of names, read whole), and
        // conflicts; a conflict may name any of those entities.
        let synced = EntityType.allCases.filter { $0 != .favorite }.map(\.rawValue)
        #expect(try Self.schema("Change").properties == ["entity_type"] + synced + ["conflict"])
        let text = try Self.documentText()
        #expect(text.contains("enum: [\(synced.joined(separator: ", ")), conflict]"))
        #expect(text.contains("enum: [\(synced.joined(separator: ", "))]"))
    }
}
