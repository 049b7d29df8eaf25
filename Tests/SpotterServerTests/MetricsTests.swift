import AsyncHTTPClient
import Foundation
import SpotterCore
import SpotterProtocol
import SpotterTestSupport
import Testing

@testable import SpotterServer

/// `GET /metrics` through swift-metrics and each server's own Prometheus registry.
@Suite("Metrics")
struct MetricsTests {
    @Test("two servers in one process count only their own requests")
    func registriesArePerServer() async throws {
        let first = try await TestServer.start()
        try await stopping(first) { first in
            let second = try await TestServer.start()
            try await stopping(second) { second in
                try await first.createWorkout()
                try await first.createWorkout()
                try await second.createWorkout()
                let firstText = try await first.send(.GET, Route.metrics, token: nil).text
                let secondText = try await second.send(.GET, Route.metrics, token: nil).text
                let created = "spotter_http_requests_total{route=\"POST /v1/workouts\",status=\"201\"}"
                #expect(firstText.contains("\(created) 2"))
                #expect(secondText.contains("\(created) 1"))
            }
        }
    }

    @Test("batch operations count by their route; requests no route took count as 'unknown'")
    func batchAndUnroutedLabels() async throws {
        let server = try await TestServer.start()
        try await stopping(server) { server in
            let ops = [
                BatchOp(idempotencyKey: "w", method: "POST", path: Route.workouts, body: Fixtures.workout()),
                BatchOp(idempotencyKey: nil, method: "GET", path: Route.workouts, body: nil),
                BatchOp(idempotencyKey: nil, method: "DELETE", path: Route.workouts + "/not-a-uuid", body: nil),
            ]
            let body = BatchRequest(ops: ops).json.canonicalString
            let batch = try await server.send(.POST, Route.batch, body: body).decode(BatchResponse.self).results
            #expect(batch.map(\.status) == [201, 422, 422])

            let trailing = try await server.send(.GET, Route.workouts + "/")
            #expect(trailing.status == 404)
            #expect(trailing.contentType == "application/problem+json")
            let wrongMethod = try await server.send(.PUT, Route.workouts, body: "{}")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.headers.first(name: "Allow") == "GET, POST")
            #expect(try await server.send(.PATCH, Route.sets + "/not-a-uuid", body: "{}", key: "k").status == 404)

            let text = try await server.send(.GET, Route.metrics, token: nil).text
            #expect(text.contains("spotter_batch_operations_total{route=\"POST /v1/workouts\",status=\"201\"} 1"))
            #expect(text.contains("spotter_batch_operations_total{route=\"GET /v1/workouts\",status=\"422\"} 1"))
            #expect(text.contains("spotter_batch_operations_total{route=\"unknown\",status=\"422\"} 1"))
            #expect(text.contains("spotter_http_requests_total{route=\"unknown\",status=\"404\"} 2"))
            #expect(text.contains("spotter_http_requests_total{route=\"unknown\",status=\"405\"} 1"))
            #expect(text.contains("spotter_http_request_duration_seconds_count{route=\"POST /v1/batch\"} 1"))
        }
    }
}
