/**
 * Readers' access to a protected status page (docs/public-page.md, "Audiences"): a reader who
 * enters the page's password gets a cookie signed with a key of the service's own, over the page
 * and a tag of its password, so a new password ends every reader's access at once. Nothing is
 * stored per reader. Tries are limited per client and page, and the password is checked in
 * constant time (StatusPages.verifyPassword).
 */
import { createHmac, timingSafeEqual } from "node:crypto"

import { Clock, Context, Duration, Effect, Layer } from "effect"

import { clientBudget } from "../../domain/NetworkAddress.js"
import { ServerSecretsRepo } from "../../persistence/ServerSecretsRepo.js"
import type { RateLimit } from "../auth/RateLimiter.js"
import { RateLimiter } from "../auth/RateLimiter.js"
import { StatusPages } from "./StatusPages.js"

/** How long a reader keeps access after entering the password. */
export const pageAccessMaxAge = Duration.days(30)

/** Password tries per client and page: enough for typos, too few for guessing. */
export const pageAccessLimit: RateLimit = { max: 10, window: Duration.minutes(15) }

/** The cookie that carries a reader's access to the page with id `pageId`. */
export const pageAccessCookie = (pageId: string) => `page-access-${pageId}`

/** What a cookie is signed for: a page, as long as its password stays the same. */
export interface ProtectedPage {
  readonly id: string
  readonly passwordTag: string | null
}

export class PageAccess extends Context.Service<PageAccess>()("PageAccess", {
  make: Effect.gen(function*() {
    const secrets = yield* ServerSecretsRepo
    const pages = yield* StatusPages
    const limiter = yield* RateLimiter

    // Read once per process, when first needed: a failed read (database away) is tried again.
    let key: Buffer | undefined
    const signingKey = Effect.suspend(() =>
      key !== undefined
        ? Effect.succeed(key)
        : Effect.tap(secrets.obtain("page-access"), (read) => Effect.sync(() => (key = read)))
    )
    const mac = (secret: Buffer, page: ProtectedPage, expires: string) =>
      createHmac("sha256", secret).update(`page-access v1\n${page.id}\n${page.passwordTag ?? ""}\n${expires}`).digest()

    return {
      /**
       * Whether `cookie` gives access to `page`: signed for it and its current password, and not
       * expired. A cookie altered in any part is no cookie at all.
       */
      allows: Effect.fn("PageAccess.allows")(function*(page: ProtectedPage, cookie: string | undefined) {
        const [expires = "", signature = "", ...rest] = cookie?.split(".") ?? []
        if (rest.length > 0 || !/^\d{1,12}$/.test(expires)) return false
        const given = Buffer.from(signature, "base64url")
        const expected = mac(yield* signingKey, page, expires)
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false
        return Number(expires) * 1000 > (yield* Clock.currentTimeMillis)
      }),

      /**
       * A cookie value for a reader who entered `password`, when it is the page's; none when it is
       * not. TooManyRequests past the tries a client has for the page.
       */
      enter: Effect.fn("PageAccess.enter")(function*(page: ProtectedPage, password: string, client: string) {
        yield* limiter.check(`page-access:${page.id}:${clientBudget(client)}`, pageAccessLimit)
        if (!(yield* pages.verifyPassword(page.id, password))) return undefined
        const now = yield* Clock.currentTimeMillis
        const expires = String(Math.floor((now + Duration.toMillis(pageAccessMaxAge)) / 1000))
        return `${expires}.${mac(yield* signingKey, page, expires).toString("base64url")}`
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([ServerSecretsRepo.layer, StatusPages.layer, RateLimiter.layer])
  )
}
