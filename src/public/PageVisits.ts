/**
 * Which status page a request reads, and whether its reader may: the page by `/p/<slug>/`, by the
 * request's host, or the default page (state/Site.ts), and for a protected page the reader's
 * access cookie (services/auth/PageAccess.ts). The HTML routes and the JSON handlers admit a
 * request the same way; a protected page's answers are then marked as the reader's own.
 */
import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"

import { NotFound, Unauthorized } from "../domain/Errors.js"
import { PageAccess, pageAccessCookie } from "../services/catalog/PageAccess.js"
import type { CachedResponse } from "./PublicResponses.js"
import { PublicSnapshot } from "./state/PublicSnapshot.js"
import type { Reading, Visit } from "./state/Site.js"
import { hostName, visiting } from "./state/Site.js"

/** The visit a request makes: `slug` from a `/p/<slug>/` route, else its host; `?lang=`; `Accept-Language`. */
export const visitOf = (request: HttpServerRequest.HttpServerRequest, slug: string | undefined): Visit => {
  const lang = new URL(request.url, "http://localhost").searchParams.get("lang") ?? undefined
  const acceptLanguage = request.headers["accept-language"]
  return slug === undefined
    ? { host: hostName(request.headers.host), lang, acceptLanguage }
    : { slug, lang, acceptLanguage }
}

/** Headers of a protected page's answers: no shared cache keeps them. */
export const privateHeaders = { "cache-control": "private, no-cache", vary: "Cookie" } as const

/** `response` as a page's reader gets it: marked private when the page is protected. */
export const forReader = (response: CachedResponse, reading: Reading): CachedResponse => {
  if (!reading.page.isProtected) return response
  const vary = response.headers?.vary
  return {
    ...response,
    headers: { ...response.headers, ...privateHeaders, vary: vary === undefined ? "Cookie" : `${vary}, Cookie` }
  }
}

export class PageVisits extends Context.Service<PageVisits>()("PageVisits", {
  make: Effect.gen(function*() {
    const snapshots = yield* PublicSnapshot
    const access = yield* PageAccess

    return {
      /**
       * The page a visit reads, when its reader may read it: NotFound for a slug no page has,
       * Unauthorized for a protected page without a valid access cookie among `cookies`.
       */
      admit: Effect.fn("PageVisits.admit")(function*(visit: Visit, cookies: Readonly<Record<string, string>>) {
        const snapshot = yield* snapshots.get
        const reading = visiting(snapshot.site, visit)
        if (reading === undefined) return yield* Effect.fail(NotFound.of("Status page", visit.slug ?? ""))
        if (!reading.page.isProtected) return reading
        const allowed = yield* access.allows(reading.page, cookies[pageAccessCookie(reading.page.id)])
        if (!allowed) {
          return yield* new Unauthorized({
            message: `This status page is protected: enter its password at ${reading.base}/access first`
          })
        }
        return reading
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([PublicSnapshot.layer, PageAccess.layer]))
}
