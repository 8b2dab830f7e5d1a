/**
 * The admin API's live events (`GET /api/v1/admin/events`; docs/api.md, "Live events"), over
 * real HTTP on PostgreSQL: who may open the stream, what it says first, that a change made
 * through the API (on this instance or another) and a monitor's transition reach it (and leave the
 * public snapshot alone), that a burst of changes comes as one event, that idle streams get
 * keep-alive comments, and that a stream's place and subscription go when the client goes away,
 * at the cap (503), after the stream's lifetime and when the server stops.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Clock, ConfigProvider, Context, Effect, Exit, Fiber, Layer, Scope, Stream } from "effect"
import { Sse } from "effect/encoding"
import { HttpClient, HttpClientRequest, HttpServer } from "effect/http"
import { TestClock } from "effect/testing"

import { liveEvents } from "../../src/api/EventsApi.js"
import { LiveEvents } from "../../src/http/EventsHttp.js"
import { PublicSnapshot } from "../../src/public/state/PublicSnapshot.js"
import { ProbeRegistry } from "../../src/services/monitoring/ProbeRegistry.js"
import { ResultIngest } from "../../src/services/monitoring/ResultIngest.js"
import { StateChanges, type Touched } from "../../src/services/StateChanges.js"
import { adminVariables, sessionCookieHeader } from "../support/Auth.js"
import { checkResult, slotOf } from "../support/CheckResults.js"
import { realPause } from "../support/Eventually.js"
import { testConfig, TestDatabaseUrl } from "../support/TestDatabase.js"
import {
  Anonymous,
  ApiClient,
  sendAnonymous,
  sendJson,
  SuiteApiKey,
  TestServer,
  TestStack
} from "../support/TestServer.js"

const path = "/api/v1/admin/events"

interface Received {
  readonly event: string
  readonly data: string
}

/** What a `change` event's data says. */
const touchedOf = (received: Received): Touched => JSON.parse(received.data)

const isChange = (check: (touched: Touched) => boolean) => (received: Received) =>
  received.event === "change" && check(touchedOf(received))

const namesIncident = (id: string) =>
  isChange((touched) => touched.incidents === "all" || (touched.incidents ?? []).includes(id))

/** Polls `check` in real time (the stream's I/O goes on whatever the clock) until it holds, or fails after `ms`. */
const until = (what: string, check: () => boolean, ms = 2_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`not within ${ms} ms: ${what}`))
      yield* realPause(10)
    }
  })

/**
 * `GET /api/v1/admin/events` held open with `client` (the suite's key by default): its answer, its
 * text and events so far, whether it ended, and `close`, which drops the connection.
 */
const openEvents = (headers: Record<string, string> = {}, client?: HttpClient.HttpClient) =>
  Effect.gen(function*() {
    const http = client ?? (yield* HttpClient.HttpClient)
    const response = yield* http.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
    let text = ""
    const events: Array<Received> = []
    let end: "open" | "ended" | "failed" = "open"
    const parser = Sse.makeParser((event) => {
      if (event._tag === "Event") events.push({ event: event.event, data: event.data })
    })
    const reading = yield* response.stream.pipe(
      Stream.decodeText,
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          text += chunk
          parser.feed(chunk)
        })
      ),
      Effect.onExit((exit) =>
        Effect.sync(() => {
          end = Exit.isSuccess(exit) ? "ended" : "failed"
        })
      ),
      Effect.forkDetach
    )
    const opened = {
      response,
      text: () => text,
      events: () => events as ReadonlyArray<Received>,
      end: () => end,
      /** The first event after the first `skip` that `matches`, within `ms`. */
      next: (what: string, matches: (received: Received) => boolean, skip = 0, ms = 2_000) =>
        Effect.map(
          until(what, () => events.slice(skip).some(matches), ms),
          () => events.slice(skip).find(matches)!
        ),
      close: Fiber.interrupt(reading)
    }
    // Closed with the test, whatever it did.
    yield* Effect.addFinalizer(() => opened.close)
    return opened
  })

/** A stream whose `ready` came. */
const ready = (headers: Record<string, string> = {}, client?: HttpClient.HttpClient) =>
  Effect.tap(openEvents(headers, client), (stream) => stream.next("ready", (e) => e.event === "ready"))

layer(
  Layer.mergeAll(LiveEvents.layer, PublicSnapshot.layer, StateChanges.layer).pipe(
    Layer.provideMerge(TestStack(testConfig(adminVariables)))
  ),
  { excludeTestServices: true, timeout: 120_000 }
)("live events", (it) => {
  it.effect("needs credentials: 401 with the contract's body, before anything streams", () =>
    Effect.gen(function*() {
      const answer = yield* sendAnonymous("GET", path)
      expect(answer.status).toBe(401)
      expect(answer.headers["content-type"]).toContain("application/json")
      expect(answer.body).toEqual({ _tag: "Unauthorized", message: "Missing or invalid credentials" })
    }))

  it.effect("takes no query: an unknown parameter is 400, as everywhere under /api/v1", () =>
    Effect.gen(function*() {
      const answer = yield* sendJson("GET", `${path}?since=41`)
      expect(answer.status).toBe(400)
      expect(answer.body._tag).toBe("HttpApiDecodeError")
    }))

  it.effect("a viewer's key or a session opens it: text/event-stream, not kept, opening with retry and ready", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const viewer = yield* client.apiKeys.create({ payload: { name: "dashboard viewer", role: "viewer" } })
      const anonymous = yield* Anonymous
      for (
        const headers of [{ authorization: `Bearer ${viewer.key}` }, { cookie: yield* sessionCookieHeader }]
      ) {
        const stream = yield* ready(headers, anonymous)
        expect(stream.response.status).toBe(200)
        expect(stream.response.headers["content-type"]).toBe("text/event-stream")
        expect(stream.response.headers["cache-control"]).toBe("no-cache")
        expect(stream.response.headers["x-accel-buffering"]).toBe("no")
        // Nothing before the first event: the reconnection delay, then `ready` with the version.
        expect(stream.text()).toMatch(/^retry: 3000\nevent: ready\ndata: \{"version":\d+\}\n\n/)
        expect(stream.events()[0]!.event).toBe("ready")
        expect(JSON.parse(stream.events()[0]!.data)).toEqual({ version: expect.any(Number) })
        yield* stream.close
      }
    }).pipe(Effect.scoped))

  it.effect("a change made through the API reaches the stream within 2 s, naming what it touched", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const stream = yield* ready()
      const { version } = JSON.parse(stream.events()[0]!.data)
      const incident = yield* client.incidents.create({ payload: { title: "Checkout errors", message: "Looking" } })
      const change = yield* stream.next("the incident's change", namesIncident(incident.id))
      expect(touchedOf(change).incidents).toContain(incident.id)
      // A client connecting again learns a later version.
      const again = yield* ready()
      expect(JSON.parse(again.events()[0]!.data).version).toBeGreaterThan(version)
    }).pipe(Effect.scoped))

  it.effect("closing the client gives back its place (its subscription goes with the same request scope)", () =>
    Effect.gen(function*() {
      const live = yield* LiveEvents
      yield* until("the earlier tests' streams to be closed", () => live.open() === 0)
      const stream = yield* ready()
      expect(live.open()).toBe(1)
      yield* stream.close
      yield* until("the stream's place to be given back", () => live.open() === 0)
    }).pipe(Effect.scoped))

  it.effect(`one credential holds at most ${liveEvents.maxStreamsPerCredential} streams: one more is 429, others still connect`, () =>
    Effect.gen(function*() {
      const live = yield* LiveEvents
      yield* until("the earlier tests' streams to be closed", () => live.open() === 0)
      const client = yield* ApiClient
      const greedy = yield* client.apiKeys.create({ payload: { name: "greedy", role: "viewer" } })
      const asGreedy = { authorization: `Bearer ${greedy.key}` }
      // Without the suite's own key, which the default client sets over any given.
      const anonymous = yield* Anonymous
      const streams = yield* Effect.forEach(
        Array.from({ length: liveEvents.maxStreamsPerCredential }),
        () => ready(asGreedy, anonymous),
        { concurrency: 5 }
      )
      const refused = yield* sendAnonymous("GET", path, undefined, asGreedy)
      expect(refused.status).toBe(429)
      expect(refused.headers["retry-after"]).toBe(String(liveEvents.retryAfterSeconds))
      expect(refused.body).toMatchObject({ _tag: "TooManyRequests" })
      // Another credential is not held back by this one.
      const other = yield* client.apiKeys.create({ payload: { name: "other", role: "viewer" } })
      const admitted = yield* sendAnonymous("GET", path, undefined, { authorization: `Bearer ${other.key}` })
      expect(admitted.status).toBe(200)
      yield* streams[0]!.close
      yield* until("a place of the greedy key to be free", () => live.open() < liveEvents.maxStreamsPerCredential)
      expect((yield* sendAnonymous("GET", path, undefined, asGreedy)).status).toBe(200)
      yield* Effect.forEach(streams, (stream) => stream.close, { discard: true })
      yield* until("every place to be given back", () => live.open() === 0)
    }).pipe(Effect.scoped))

  it.effect(`at ${liveEvents.maxStreams} open streams one more is 503 with Retry-After; a closed one makes room`, () =>
    Effect.gen(function*() {
      const live = yield* LiveEvents
      yield* until("the earlier tests' streams to be closed", () => live.open() === 0)
      // Each credential may hold only so many: the server's cap is reached with several keys.
      const client = yield* ApiClient
      const holders = yield* Effect.forEach(
        Array.from({ length: Math.ceil(liveEvents.maxStreams / liveEvents.maxStreamsPerCredential) }),
        (_, i) => client.apiKeys.create({ payload: { name: `holder ${i}`, role: "viewer" } })
      )
      const anonymous = yield* Anonymous
      const streams = yield* Effect.forEach(
        Array.from({ length: liveEvents.maxStreams }),
        (_, i) =>
          ready(
            { authorization: `Bearer ${holders[Math.floor(i / liveEvents.maxStreamsPerCredential)]!.key}` },
            anonymous
          ),
        { concurrency: 25 }
      )
      expect(live.open()).toBe(liveEvents.maxStreams)
      const { key } = yield* client.apiKeys.create({ payload: { name: "one too many", role: "viewer" } })
      const refused = yield* sendAnonymous("GET", path, undefined, { authorization: `Bearer ${key}` })
      expect(refused.status).toBe(503)
      expect(refused.headers["retry-after"]).toBe(String(liveEvents.retryAfterSeconds))
      expect(refused.body).toEqual({
        _tag: "ServiceUnavailable",
        message: `The server has ${liveEvents.maxStreams} event streams open, its most; connect again later`
      })
      yield* streams[0]!.close
      yield* until("a place to be free", () => live.open() < liveEvents.maxStreams)
      const admitted = yield* sendAnonymous("GET", path, undefined, { authorization: `Bearer ${key}` })
      expect(admitted.status).toBe(200)
      expect(admitted.body).toMatch(/^retry: 3000\nevent: ready\n/)
      yield* Effect.forEach(streams, (stream) => stream.close, { discard: true })
      yield* until("every place to be given back", () => live.open() === 0)
    }).pipe(Effect.scoped))

  it.effect("another instance's changes reach the stream: its commits and its announcements", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabaseUrl
      // A memo map of its own: the suite's would hand back this instance's server and services.
      const other = yield* Layer.buildWithMemoMap(
        StateChanges.layer.pipe(
          Layer.provideMerge(TestStack(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))))
        ),
        yield* Layer.makeMemoMap,
        yield* Effect.scope
      )
      const stream = yield* ready()
      const elsewhere = Context.get(other, HttpClient.HttpClient)
      const created = yield* elsewhere.execute(
        HttpClientRequest.post("/api/v1/admin/incidents").pipe(
          HttpClientRequest.bodyJsonUnsafe({ title: "Elsewhere", message: "Seen from the other instance" })
        )
      )
      const incident = (yield* created.json) as { readonly id: string }
      yield* stream.next("the other instance's incident", namesIncident(incident.id))
      // A change committed without `commit` (ingest's monitor states), announced over there.
      const skip = stream.events().length
      yield* Context.get(other, StateChanges).announce({ monitors: true })
      const change = yield* stream.next("the other instance's monitors", isChange((t) => t.monitors === true), skip)
      expect(touchedOf(change)).toEqual({ monitors: true })
    }).pipe(Effect.scoped))

  it.effect("the monitors' announcement leaves the public snapshot as it is; a component's change does not", () =>
    Effect.gen(function*() {
      const snapshots = yield* PublicSnapshot
      const before = yield* snapshots.upToDate
      yield* (yield* StateChanges).announce({ monitors: true })
      // Caught up with the announcement, by taking the same snapshot to its version.
      expect(yield* snapshots.upToDate).toBe(before)
      expect(snapshots.freshness().behind).toBe(false)
      yield* (yield* ApiClient).components.create({ payload: { name: "Search" } })
      expect(snapshots.latest()).not.toBe(before)
    }))

  it.effect("a server that stops ends its streams at once rather than waiting for them", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabaseUrl
      const scope = yield* Scope.make()
      const other = yield* Layer.buildWithMemoMap(
        TestStack(ConfigProvider.layer(ConfigProvider.fromUnknown({ DATABASE_URL: url }))),
        yield* Layer.makeMemoMap,
        scope
      )
      // A client of the test's own: the stopping stack's would be closed with it.
      const client = Context.get(
        yield* Layer.build(NodeHttpClient.layerNodeHttpNoAgent.pipe(Layer.provide(NodeHttpClient.layerAgent))),
        HttpClient.HttpClient
      ).pipe(
        HttpClient.mapRequest(HttpClientRequest.prependUrl(HttpServer.formatAddress(
          Context.get(other, HttpServer.HttpServer).address
        )))
      )
      const stream = yield* ready({ authorization: `Bearer ${Context.get(other, SuiteApiKey)}` }, client)
      const stopping = Date.now()
      yield* Scope.close(scope, Exit.void)
      // Node's server waits up to 20 s for open connections; the streams do not hold it.
      expect(Date.now() - stopping).toBeLessThan(5_000)
      yield* until("the stream to end", () => stream.end() !== "open")
      expect(stream.end()).toBe("ended")
    }).pipe(Effect.scoped))
})

const Stack = Layer.mergeAll(ResultIngest.layer, ProbeRegistry.layer, LiveEvents.layer).pipe(
  Layer.provideMerge(TestServer())
)

layer(Stack, { timeout: 60_000 })("live events on the suite's clock", (it) => {
  it.effect("a burst of changes comes as one event; an idle stream hears a keep-alive comment", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const stream = yield* ready()
      const first = yield* client.incidents.create({ payload: { title: "First", message: "Looking" } })
      yield* stream.next("the first change, at once", namesIncident(first.id))
      const seen = stream.events().length
      // Within 250 ms of the last event (the clock stands still): held, and merged.
      const second = yield* client.incidents.create({ payload: { title: "Second", message: "Looking" } })
      const third = yield* client.incidents.create({ payload: { title: "Third", message: "Looking" } })
      yield* realPause(300)
      expect(stream.events().length).toBe(seen)
      yield* TestClock.adjust(`${liveEvents.changeEveryMs} millis`)
      const merged = yield* stream.next("the burst's one change", namesIncident(second.id), seen)
      expect(touchedOf(merged).incidents).toEqual(expect.arrayContaining([second.id, third.id]))
      yield* realPause(100)
      expect(stream.events().length).toBe(seen + 1)

      expect(stream.text()).not.toContain(": keep-alive")
      yield* TestClock.adjust(`${liveEvents.keepAliveSeconds} seconds`)
      yield* until("a keep-alive comment", () => stream.text().includes("\n\n: keep-alive\n\n"))
    }).pipe(Effect.scoped))

  it.effect(`a stream ends after ${liveEvents.lifetimeMinutes} minutes, for its client to be authenticated again`, () =>
    Effect.gen(function*() {
      const live = yield* LiveEvents
      yield* until("the earlier tests' streams to be closed", () => live.open() === 0)
      const stream = yield* ready()
      yield* TestClock.adjust(`${liveEvents.lifetimeMinutes - 1} minutes`)
      yield* realPause(50)
      expect(stream.end()).toBe("open")
      yield* TestClock.adjust("1 minute")
      yield* until("the stream to end", () => stream.end() !== "open")
      expect(stream.end()).toBe("ended")
      yield* until("its place to be given back", () => live.open() === 0)
    }).pipe(Effect.scoped))

  it.effect("a monitor's transition, ingested, tells the stream `monitors: true`", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = yield* client.components.create({ payload: { name: "Checkout" } })
      const monitor = yield* client.monitors.create({
        payload: {
          componentId: component.id,
          type: "http",
          url: "https://example.com",
          regions: ["eu"],
          failureThreshold: 1
        }
      })
      const stream = yield* ready()
      yield* TestClock.adjust("1 minute")
      const scheduledAt = slotOf(monitor.id, (yield* Clock.currentTimeMillis) - 30_000)
      yield* (yield* ResultIngest).ingest([checkResult(monitor.id, "eu", scheduledAt, false)])
      expect((yield* client.monitors.get({ params: { id: monitor.id } })).state).toBe("down")
      // The component's move went out at once; the monitors' announcement after the spacing.
      yield* TestClock.adjust("1 second")
      yield* stream.next("the monitor's transition", isChange((touched) => touched.monitors === true))
    }).pipe(Effect.scoped))
})
