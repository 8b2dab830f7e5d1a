/**
 * `GET /api/v1/status/components/:id/response-times` served from memory, like uptime: each
 * (component, period) answer is read from the rollups once and kept encoded (bytes, ETag) for
 * `max-age` seconds, and while the public snapshot is the same. Whether a component is public is
 * the snapshot's call, so an unknown or private id is 404 without a query, and the cache holds
 * public components only.
 */
import { Clock, Context, Deferred, Duration, Effect, Layer } from "effect"

import { NotFound } from "../domain/Errors.js"
import { ComponentResponseTimes, defaultResponseTimesPeriod, ResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { ResponseTimes } from "../services/monitoring/ResponseTimes.js"
import type { EncodedResponse } from "./PublicResponses.js"
import { encodedJson, publicMaxAge } from "./PublicResponses.js"
import type { Snapshot } from "./state/PublicSnapshot.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import { readsDefault, type Visit } from "./state/Site.js"

const maxAge = Duration.toMillis(Duration.seconds(publicMaxAge))
const isPeriod = (value: string): value is ResponseTimesPeriod => ResponseTimesPeriod.literals.some((p) => p === value)
const prefix = "/api/v1/status/components/"
const suffix = "/response-times"

type ReadError = Effect.Error<ReturnType<ResponseTimes["Service"]["ofComponent"]>>

interface Entry {
  readonly response: EncodedResponse
  readonly readAt: number
}

/** The component and period a request URL asks for, when the fast path may answer it. */
const requestOfUrl = (url: string): { componentId: string; period: ResponseTimesPeriod } | undefined => {
  if (!url.startsWith(prefix)) return undefined
  const [path = "", query] = url.split("?", 2)
  if (!path.endsWith(suffix)) return undefined
  const asked = query?.startsWith("period=") ? query.slice(7) : undefined
  const period = query === undefined
    ? defaultResponseTimesPeriod
    : asked !== undefined && isPeriod(asked)
    ? asked
    : undefined
  if (period === undefined) return undefined
  try {
    return { componentId: decodeURIComponent(path.slice(prefix.length, -suffix.length)), period }
  } catch {
    return undefined
  }
}

const isPublic = (snapshot: Snapshot, componentId: string) =>
  snapshot.state.components.some((component) => component.id === componentId)

export class PublicResponseTimes extends Context.Service<PublicResponseTimes>()("PublicResponseTimes", {
  make: Effect.gen(function*() {
    const responseTimes = yield* ResponseTimes
    const snapshots = yield* PublicSnapshot
    // The service's Clock, read synchronously by the fast path (a TestClock in tests).
    const clock = yield* Clock.Clock
    /** Answers of the snapshot they were read under, by `componentId|period`: public components only. */
    let entries: { snapshot: Snapshot | undefined; byKey: Map<string, Entry> } = {
      snapshot: undefined,
      byKey: new Map()
    }
    /** The read under way per key: readers arriving meanwhile share its result, or its failure. */
    const reads = new Map<string, Deferred.Deferred<EncodedResponse, ReadError>>()

    const current = (snapshot: Snapshot | undefined, key: string) => {
      const entry = entries.snapshot === snapshot ? entries.byKey.get(key) : undefined
      return entry !== undefined && clock.currentTimeMillisUnsafe() - entry.readAt < maxAge ? entry.response : undefined
    }

    // Uninterruptible: the readers waiting on it must get an answer.
    const read = (snapshot: Snapshot, componentId: string, period: ResponseTimesPeriod, key: string) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const underway = reads.get(key)
          if (underway !== undefined) return yield* restore(Deferred.await(underway))
          const done = yield* Deferred.make<EncodedResponse, ReadError>()
          reads.set(key, done)
          const readAt = clock.currentTimeMillisUnsafe()
          const outcome = yield* Effect.exit(
            Effect.map(
              responseTimes.ofComponent(componentId, period),
              (answer) => encodedJson(ComponentResponseTimes, answer)
            )
          )
          if (outcome._tag === "Success") {
            // A new snapshot drops the answers of the last one: hidden or deleted components go with them.
            if (entries.snapshot !== snapshot) entries = { snapshot, byKey: new Map() }
            entries.byKey.set(key, { response: outcome.value, readAt })
          }
          reads.delete(key)
          yield* Deferred.done(done, outcome)
          return yield* outcome
        })
      )

    return {
      /** A public component's answer; NotFound for an unknown or private one (no query). */
      get: Effect.fn("PublicResponseTimes.get")((componentId: string, period: ResponseTimesPeriod) =>
        Effect.flatMap(snapshots.get, (snapshot): Effect.Effect<EncodedResponse, NotFound | ReadError> => {
          if (!isPublic(snapshot, componentId)) return Effect.fail(NotFound.of("Component", componentId))
          const key = `${componentId}|${period}`
          const fresh = current(snapshot, key)
          return fresh !== undefined ? Effect.succeed(fresh) : read(snapshot, componentId, period, key)
        })
      ),

      /** The current response for a request URL, if there is one; for the request-listener fast path. */
      cachedNow: (url: string, visit: Visit = {}): EncodedResponse | undefined => {
        const request = requestOfUrl(url)
        const snapshot = snapshots.latest()
        // Another page's component answers through the router, which checks the page shows it.
        return request === undefined || snapshot === undefined || !readsDefault(snapshot.site, visit)
          ? undefined
          : current(snapshots.latest(), `${request.componentId}|${request.period}`)
      }
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([ResponseTimes.layer, PublicSnapshot.layer]))
}
