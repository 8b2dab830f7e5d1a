/**
 * What the request-listener fast path (http/PublicHttpServer.ts) answers without the Effect
 * router: what the process has cached and is current, by request URL, host and language. The
 * snapshot's responses and the public pages of every public page (`/p/<slug>/…`, or a page's own
 * domain), the default page's uptime and components' response times. A protected page, or a URL
 * none of them holds, goes to the router, which reads or renders it (and caches it for the next
 * request).
 */
import { Context, Effect, Layer } from "effect"

import { PublicPages } from "./PublicPages.js"
import type { CachedResponse } from "./PublicResponses.js"
import { PublicResponseTimes } from "./PublicResponseTimes.js"
import { PublicUptime } from "./PublicUptime.js"
import { SnapshotResponses } from "./SnapshotResponses.js"
import { hostName, type Visit } from "./state/Site.js"
import { StatuspageResponses } from "./StatuspageResponses.js"

/** A `/p/<slug>/…` URL's slug and the path below it; undefined for any other URL. */
export const underPage = (url: string): { readonly slug: string; readonly path: string } | undefined => {
  if (!url.startsWith("/p/")) return undefined
  const end = url.indexOf("/", 3)
  return end < 0 ? undefined : { slug: url.slice(3, end), path: url.slice(end) }
}

export class FastPath extends Context.Service<FastPath>()("FastPath", {
  make: Effect.gen(function*() {
    const [snapshot, pages, uptime] = [yield* SnapshotResponses, yield* PublicPages, yield* PublicUptime]
    const responseTimes = yield* PublicResponseTimes
    const statuspage = yield* StatuspageResponses
    return {
      /** The cached response for a request, if there is one and it is current. */
      lookup: (
        url: string,
        host: string | undefined,
        acceptLanguage: string | undefined
      ): CachedResponse | undefined => {
        const page = underPage(url)
        const visit: Visit = page === undefined
          ? { host: hostName(host), acceptLanguage }
          : { slug: page.slug, acceptLanguage }
        const path = page?.path ?? url
        return snapshot.cachedNow(path, visit) ?? pages.cachedNow(path, visit) ??
          uptime.cachedNow(path, visit) ?? responseTimes.cachedNow(path, visit) ?? statuspage.cachedNow(path, visit)
      }
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      SnapshotResponses.layer,
      PublicPages.layer,
      PublicUptime.layer,
      PublicResponseTimes.layer,
      StatuspageResponses.layer
    ])
  )
}
