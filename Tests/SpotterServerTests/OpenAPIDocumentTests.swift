import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import Testing

@testable import SpotterServer

/// `openapi.yaml` at the repository root and the routes the server answers agree, both ways.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    /// "METHOD /path/{param}" for every operation in the document.
    static func documentedOperations() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
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
}
