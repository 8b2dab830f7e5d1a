/**
 * What the request-listener fast path (http/PublicHttpServer.ts) answers without the Effect
 * router: what the process has cached and is current, by request URL. The snapshot's responses,
 * the public pages (`/`, `/history`, the badge and widget), uptime, components' response times.
 * A URL none of them holds goes to the router, which reads or renders it (and caches it for the
 * next request).
 */
import { Context, Effect, Layer } from "effect"

import { PublicPages } from "./PublicPages.js"
import type { CachedResponse } from "./PublicResponses.js"
import { PublicResponseTimes } from "./PublicResponseTimes.js"
import { PublicUptime } from "./PublicUptime.js"
import { SnapshotResponses } from "./SnapshotResponses.js"

export class FastPath extends Context.Service<FastPath>()("FastPath", {
  make: Effect.gen(function*() {
    const [snapshot, pages, uptime] = [yield* SnapshotResponses, yield* PublicPages, yield* PublicUptime]
    const responseTimes = yield* PublicResponseTimes
    return {
      /** The cached response for a request URL, if there is one and it is current. */
      lookup: (url: string): CachedResponse | undefined =>
        snapshot.cachedNow(url) ?? pages.cachedNow(url) ?? uptime.cachedNow(url) ?? responseTimes.cachedNow(url)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([SnapshotResponses.layer, PublicPages.layer, PublicUptime.layer, PublicResponseTimes.layer])
  )
}
