/**
 * E-mail subscriptions with double opt-in, each to one status page and in one language: an
 * address may subscribe to several pages, one subscription each. The answer to a subscription request is the same
 * whatever the address's state, and the mail goes out in the background, so neither the body
 * nor the response time tells whether an address is subscribed. The confirmation mail is queued
 * in the database with the request, so a failed send is retried by the dispatcher.
 */
import { createHash, randomBytes } from "node:crypto"

import { Clock, Context, Duration, Effect, FiberSet, Layer, Option } from "effect"

import { BadRequest, NotFound, orNotFound } from "../../domain/Errors.js"
import type { Locale } from "../../domain/Locale.js"
import { clientBudget } from "../../domain/NetworkAddress.js"
import type { PageRequest } from "../../domain/Page.js"
import type { SubscriberId } from "../../domain/Subscriber.js"
import { isToken, SubscribeAccepted, Unsubscribed, Verified } from "../../domain/Subscriber.js"
import { StatusPagesRepo } from "../../persistence/StatusPagesRepo.js"
import { noPage, SubscribersRepo } from "../../persistence/SubscribersRepo.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import type { RateLimit } from "../auth/RateLimiter.js"
import { RateLimiter } from "../auth/RateLimiter.js"
import { MailDeliveries } from "./mail/MailDeliveries.js"
import { verificationHours } from "./mail/SubscriberMail.js"

/** Per address: confirmation mails to one inbox. Per client: addresses tried from one place. */
export const subscribeLimits = {
  perAddress: { max: 3, window: Duration.hours(1) },
  perClient: { max: 20, window: Duration.hours(1) }
} satisfies Record<string, RateLimit>

const accepted = new SubscribeAccepted({
  message: "Thanks. If this address is not subscribed yet, a confirmation link is on its way to it."
})

/** 256 random bits, URL-safe. */
const newToken = () => randomBytes(32).toString("base64url")
/** Only the hash of a verification token is stored. */
export const hashToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex")

/**
 * `componentIds` without duplicates when each names a public component page `pageId` shows; else
 * a 400 naming the others at each place they appear. A private component, or one of another page,
 * is answered as an unknown one, so a reader learns nothing of it. Empty means every component
 * (null).
 */
const checkPageComponents = (
  repo: SubscribersRepo["Service"],
  pageId: string,
  componentIds: ReadonlyArray<string> | null | undefined
) =>
  Effect.gen(function*() {
    const unique = [...new Set(componentIds ?? [])]
    if (unique.length === 0) return null
    const found = yield* repo.pageComponents(pageId, unique)
    const missing = unique.filter((id) => !found.has(id))
    if (missing.length === 0) return unique
    return yield* Effect.fail(
      new BadRequest({
        message: `Unknown componentIds: ${missing.map((id) => JSON.stringify(id)).join(", ")}`,
        issues: componentIds!.flatMap((id, index) =>
          found.has(id) ? [] : [{ path: ["componentIds", index], message: `unknown component ${JSON.stringify(id)}` }]
        )
      })
    )
  })

const noSubscription = () => new NotFound({ message: "No subscription matches this address and token" })

export class Subscriptions extends Context.Service<Subscriptions>()("Subscriptions", {
  make: Effect.gen(function*() {
    const repo = yield* SubscribersRepo
    const statusPages = yield* StatusPagesRepo
    const limiter = yield* RateLimiter
    const mails = yield* MailDeliveries
    const audit = yield* AuditTrail
    // Mail in flight when the service stops is interrupted with it; its claim runs out and the dispatcher sends it.
    const background = yield* FiberSet.make()

    return {
      /**
       * Subscribes `email` to page `pageId` in `locale`. `client` is the caller's network
       * address, the key of the per-client limit; `componentIds` the public components of the
       * page chosen (absent, null or empty: all). The per-address limit counts requests to every
       * page. An address verified on the page keeps its choice and language: only its preferences
       * page, with the token its mail carries, changes the choice. A page that is not there
       * (deleted meanwhile) is NotFound.
       */
      subscribe: Effect.fn("Subscriptions.subscribe")(function*(
        email: string,
        client: string,
        componentIds: ReadonlyArray<string> | null | undefined,
        page: { readonly pageId: string; readonly locale: Locale }
      ) {
        yield* limiter.check(`subscribe:client:${clientBudget(client)}`, subscribeLimits.perClient)
        const chosen = yield* checkPageComponents(repo, page.pageId, componentIds)
        yield* limiter.check(`subscribe:address:${email}`, subscribeLimits.perAddress)
        const now = yield* Clock.currentTimeMillis
        const token = newToken()
        const confirmation = yield* repo.request({
          email,
          pageId: page.pageId,
          locale: page.locale,
          componentIds: chosen,
          token,
          tokenHash: hashToken(token),
          expiresAt: new Date(now + Duration.toMillis(Duration.hours(verificationHours))),
          unsubscribeToken: newToken(),
          claimedUntil: mails.leaseFrom(new Date(now))
        })
        // Queued already claimed, so this process sends it at once; a failure is retried from the database.
        if (Option.isSome(confirmation)) {
          yield* FiberSet.run(
            background,
            mails.attempt(confirmation.value).pipe(
              Effect.catch((error) => Effect.logWarning("Sending a confirmation mail failed", error))
            ),
            // Started after the answer, as before: the request does not wait for any of the mail's work.
            { startImmediately: false }
          )
        }
        return accepted
      }),

      /**
       * The public page of `slug` (absent: the default page) as the public API subscribes to it:
       * its id and language. A protected page is NotFound like an unknown one, so the API tells
       * nothing of it.
       */
      publicPage: Effect.fn("Subscriptions.publicPage")((slug: string | undefined) =>
        statusPages.findBySlug(slug).pipe(
          Effect.flatMap((found) =>
            Option.isSome(found) && found.value.audience === "public"
              ? Effect.succeed({ id: found.value.id, locale: found.value.locale })
              : Effect.fail(noPage())
          )
        )
      ),

      /** Whether a confirmation link still confirms: what its page shows before the visitor confirms. */
      isPending: Effect.fn("Subscriptions.isPending")((token: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => repo.isPending(hashToken(token), new Date(now)))
      ),

      verify: Effect.fn("Subscriptions.verify")(function*(token: string) {
        const now = yield* Clock.currentTimeMillis
        const verified = yield* repo.verify(hashToken(token), new Date(now))
        return yield* Option.match(verified, {
          onNone: () => Effect.fail(new NotFound({ message: "This confirmation link is unknown, used or expired" })),
          onSome: ({ email }) => Effect.succeed(new Verified({ verified: true, email }))
        })
      }),

      unsubscribe: Effect.fn("Subscriptions.unsubscribe")((email: string, token: string) =>
        // A token PostgreSQL could not even compare (NUL) matches no subscription: not a query.
        (isToken(token) ? repo.unsubscribe(email, token) : Effect.succeed(false)).pipe(
          Effect.filterOrFail((removed) => removed, noSubscription),
          Effect.as(new Unsubscribed({ unsubscribed: true }))
        )
      ),

      /**
       * The subscription an address and unsubscribe token name, for its preferences page (with
       * its page and language); else NotFound.
       */
      preferences: Effect.fn("Subscriptions.preferences")((email: string, token: string) =>
        (isToken(token) ? repo.findPreferences(email, token) : Effect.succeed(Option.none())).pipe(
          Effect.flatMap(Option.match({ onNone: () => Effect.fail(noSubscription()), onSome: Effect.succeed }))
        )
      ),

      /**
       * Changes the components of the subscription an address and unsubscribe token name
       * (empty or null: all), checked as for `subscribe` against its page; NotFound for a wrong pair.
       */
      choose: Effect.fn("Subscriptions.choose")(
        function*(email: string, token: string, componentIds: ReadonlyArray<string> | null) {
          const found = isToken(token) ? yield* repo.findPreferences(email, token) : Option.none()
          if (Option.isNone(found)) return yield* Effect.fail(noSubscription())
          const chosen = yield* checkPageComponents(repo, found.value.pageId, componentIds)
          const changed = yield* repo.choose(email, token, chosen)
          if (!changed) return yield* Effect.fail(noSubscription())
        }
      ),

      list: Effect.fn("Subscriptions.list")((page: PageRequest) => repo.findPage(page)),

      /** An operator deletes a subscriber: the audit entry names them by e-mail address. */
      remove: Effect.fn("Subscriptions.remove")((id: SubscriberId) =>
        audit.transaction(Effect.gen(function*() {
          const subscriber = yield* repo.findById(id).pipe(orNotFound("Subscriber", id))
          if (!(yield* repo.remove(id))) return yield* NotFound.of("Subscriber", id)
          yield* audit.record({
            target: { type: "subscriber", id: subscriber.id, name: subscriber.email },
            changes: changesBetween(subscriber, undefined)
          })
        }))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      SubscribersRepo.layer,
      StatusPagesRepo.layer,
      RateLimiter.layer,
      MailDeliveries.layer,
      AuditTrail.layer
    ])
  )
}
