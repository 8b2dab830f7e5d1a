/**
 * What the request-listener fast path may answer besides the snapshot's JSON: the public pages
 * and uptime, each only while it is current. The caches are the server's own (the same layer
 * instances), driven through the HTTP API and the suite's TestClock.
 */
import { gunzipSync } from "node:zlib"

import { expect, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"

import { PublicPages } from "../../src/public/PublicPages.js"
import { PublicUptime } from "../../src/public/PublicUptime.js"
import { Uptime } from "../../src/services/monitoring/Uptime.js"
import { eventually } from "../support/Eventually.js"
import { logAnnotations, replaceDefaultLogger } from "../support/Logs.js"
import { ApiClient, TestServer } from "../support/TestServer.js"

/**
 * The URLs of the request log's lines. The Effect route logs every request it answers; the
 * fast path answers in the request listener and logs none (docs/operations.md, "What the log
 * holds"): which path answered shows in the log.
 */
const loggedUrls: Array<string> = []
const requestLog = Logger.make((options) => {
  const annotations = logAnnotations(options)
  if ("http.url" in annotations) loggedUrls.push(String(annotations["http.url"]))
})

const Stack = Layer.mergeAll(PublicPages.layer, PublicUptime.layer, Uptime.layer).pipe(
  Layer.provideMerge(TestServer({}, "Info")),
  Layer.provide(replaceDefaultLogger(requestLog))
)

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers))
    )
    const { date: _, ...rest } = response.headers
    return { status: response.status, headers: rest, body: yield* response.text }
  }).pipe(Effect.scoped)

/** As `get`, with the body's bytes as they came (not unpacked). */
const getBytes = (url: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(headers))
    )
    return { headers: response.headers, bytes: Buffer.from(yield* response.arrayBuffer) }
  }).pipe(Effect.scoped)

it.layer(Stack)("public caches for the fast path", (it) => {
  it.effect("uptime: kept per period until the rollups are refreshed, the snapshot changes or five seconds pass", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const uptime = yield* PublicUptime
      const rollups = yield* Uptime
      const url = "/api/v1/status/uptime?period=24h"
      const component = yield* client.components.create({ payload: { name: "Cached" } })
      expect(uptime.cachedNow(url)).toBeUndefined()

      const first = yield* get(url)
      expect(first.status).toBe(200)
      expect(first.headers).toMatchObject({ "cache-control": "public, max-age=5", etag: expect.any(String) })
      expect(JSON.parse(first.body)).toContainEqual(
        expect.objectContaining({ componentId: component.id, componentName: "Cached", period: "24h" })
      )
      const cached = uptime.cachedNow(url)
      expect(Buffer.from(cached!.body).toString()).toBe(first.body)
      expect(cached!.etag).toBe(first.headers.etag)
      // Only the URLs the handler would answer the same way.
      expect(uptime.cachedNow("/api/v1/status/uptime")).toBeUndefined() // 90d, not read yet
      expect(uptime.cachedNow(`${url}&x=1`)).toBeUndefined()
      expect(uptime.cachedNow("/api/v1/status/uptime?period=1y")).toBeUndefined()
      expect((yield* get(url, { "if-none-match": first.headers.etag! })).status).toBe(304)

      // A refresh of the rollups in this process.
      yield* rollups.refresh
      expect(uptime.cachedNow(url)).toBeUndefined()
      yield* get(url)
      expect(uptime.cachedNow(url)).toBeDefined()

      // A change of what is public: once the snapshot is rebuilt, the next read has the new name.
      yield* client.components.update({ params: { id: component.id }, payload: { name: "Renamed" } })
      expect(uptime.cachedNow(url)).toBeUndefined()
      expect(JSON.parse((yield* get(url)).body)).toContainEqual(
        expect.objectContaining({ componentId: component.id, componentName: "Renamed" })
      )

      // At the latest after max-age (the aggregation may run elsewhere).
      expect(uptime.cachedNow(url)).toBeDefined()
      yield* TestClock.adjust("5 seconds")
      expect(uptime.cachedNow(url)).toBeUndefined()
    }))

  it.effect("pages: `/` is current while the snapshot and the uptime read it was rendered from are, and both paths answer alike", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const pages = yield* PublicPages
      const rendered = yield* get("/", { "accept-encoding": "gzip" })
      expect(rendered.status).toBe(200)
      const page = pages.cachedNow("/")
      expect(page).toBeDefined()
      // Asked gzipped: the same validator, weak.
      expect(rendered.headers.etag).toBe(`W/${page!.etag}`)
      // Not a URL the fast path takes.
      expect(pages.cachedNow("/?x=1")).toBeUndefined()
      expect(pages.cachedNow("/incidents/x")).toBeUndefined()

      expect(rendered.headers).toMatchObject({
        "content-encoding": "gzip",
        vary: "Accept-Encoding",
        "x-content-type-options": "nosniff",
        "content-security-policy": expect.stringContaining("default-src 'none'")
      })

      // A change: the page is not current once the snapshot is rebuilt, until it is rendered again.
      yield* client.incidents.create({ payload: { title: "Cache check", message: "Looking." } })
      expect(pages.cachedNow("/")).toBeUndefined()
      expect((yield* get("/")).body).toContain("Cache check")
      expect(pages.cachedNow("/")).toBeDefined()

      // The uptime bars are read again after a minute.
      yield* TestClock.adjust("1 minute")
      expect(pages.cachedNow("/")).toBeUndefined()
    }))

  it.effect("the fast path answers exactly as the Effect route: plain, gzipped, gzip refused, and 304", () =>
    Effect.gen(function*() {
      const pages = yield* PublicPages
      const uptime = yield* PublicUptime
      /** `get`, and whether the Effect route answered: it logged the request. */
      const answered = (url: string, headers: Record<string, string>) =>
        Effect.gen(function*() {
          const logged = loggedUrls.length
          const response = yield* get(url, headers)
          return { response, byRoute: loggedUrls.slice(logged).includes(url) }
        })
      /** After a minute neither cache is current: the route answers (and caches), then the fast path. */
      const bothPaths = (url: string, cachedNow: (url: string) => unknown, headers: Record<string, string>) =>
        Effect.gen(function*() {
          const label = `${url} ${JSON.stringify(headers)}`
          yield* TestClock.adjust("1 minute")
          expect(cachedNow(url)).toBeUndefined()
          // The page's uptime bars are read again in the background: the route renders again once they are.
          const route = yield* eventually(answered(url, headers), () => cachedNow(url) !== undefined, 10_000)
          expect(cachedNow(url), label).toBeDefined()
          expect(route.byRoute, `${label}: answered by the route`).toBe(true)
          const fastPath = yield* answered(url, headers)
          expect(fastPath.byRoute, `${label}: answered by the fast path`).toBe(false)
          expect(fastPath.response, label).toEqual(route.response)
          return route.response
        })
      for (
        const [url, cachedNow] of [["/", pages.cachedNow], [
          "/api/v1/status/uptime?period=7d",
          uptime.cachedNow
        ]] as const
      ) {
        const plain = yield* bothPaths(url, cachedNow, {})
        expect(plain.status).toBe(200)
        expect((yield* bothPaths(url, cachedNow, { "accept-encoding": "gzip, br" })).headers["content-encoding"])
          .toBe(url === "/" ? "gzip" : undefined)
        expect(
          (yield* bothPaths(url, cachedNow, { "accept-encoding": "gzip;q=0, identity" })).headers["content-encoding"]
        ).toBeUndefined()
        expect((yield* bothPaths(url, cachedNow, { "if-none-match": plain.headers.etag! })).status).toBe(304)
      }
    }))

  it.effect("the fast path answers a cached page alike however often and in whatever order its forms are asked for", () =>
    Effect.gen(function*() {
      const pages = yield* PublicPages
      yield* TestClock.adjust("1 minute")
      yield* eventually(get("/"), () => pages.cachedNow("/") !== undefined, 10_000)
      const etag = pages.cachedNow("/")!.etag
      const forms: ReadonlyArray<Record<string, string>> = [
        {},
        { "accept-encoding": "gzip" },
        { "if-none-match": etag },
        { "accept-encoding": "gzip", "if-none-match": `W/${etag}` },
        { "accept-encoding": "br" }
      ]
      const first = yield* Effect.forEach(forms, (headers) => getBytes("/", headers))
      expect(first.map(({ headers }) => headers["content-encoding"])).toEqual([
        undefined,
        "gzip",
        undefined,
        undefined,
        undefined
      ])
      // Each form's headers are built once per page and reused: no answer may change another's.
      for (const order of [[4, 3, 2, 1, 0], [1, 2, 1, 0, 3, 0, 4, 1]]) {
        for (const i of order) {
          const again = yield* getBytes("/", forms[i])
          const { date: _, ...headers } = again.headers
          const { date: __, ...expected } = first[i]!.headers
          expect(headers, JSON.stringify(forms[i])).toEqual(expected)
          expect(again.bytes).toEqual(first[i]!.bytes)
        }
      }
      expect(pages.cachedNow("/")!.etag).toBe(etag)
    }))

  it.effect("the snapshot's responses of 1 kB or more travel gzipped to clients that ask for it, smaller ones as they are", () =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      // Open incidents with long messages make the incident list large, as during an outage.
      for (const n of [1, 2, 3]) {
        yield* client.incidents.create({
          payload: { title: `Outage ${n}`, message: `Looking into it. ${"x".repeat(400)}` }
        })
      }
      const plain = yield* getBytes("/api/v1/status/incidents")
      const packed = yield* getBytes("/api/v1/status/incidents", { "accept-encoding": "gzip" })
      expect(plain.bytes.length).toBeGreaterThanOrEqual(1024)
      expect(plain.headers["content-encoding"]).toBeUndefined()
      expect(packed.headers).toMatchObject({
        "content-encoding": "gzip",
        vary: "Accept-Encoding",
        etag: `W/${plain.headers.etag}`
      })
      expect(packed.bytes.length).toBeLessThan(plain.bytes.length / 2)
      expect(gunzipSync(packed.bytes)).toEqual(plain.bytes)
      for (const etag of [plain.headers.etag!, packed.headers.etag!]) {
        expect((yield* get("/api/v1/status/incidents", { "accept-encoding": "gzip", "if-none-match": etag })).status)
          .toBe(304)
      }

      const small = yield* getBytes("/api/v1/status/maintenance", { "accept-encoding": "gzip" })
      expect(small.bytes.toString()).toBe("[]")
      expect(small.headers["content-encoding"]).toBeUndefined()
      // Still marked as varying: a later, larger body at the same URL will be gzipped.
      expect(small.headers.vary).toBe("Accept-Encoding")
    }))
})
