/**
 * Admin sessions: a random 256-bit token in the `__Host-session` cookie, only its SHA-256
 * stored. A session ends after SESSION_IDLE_TIMEOUT without use or SESSION_MAX_AGE after
 * sign-in, whichever comes first.
 */
import { createHash, randomBytes } from "node:crypto"

import { Clock, Context, Duration, Effect, Layer, Option } from "effect"

import type { UserId } from "../../domain/Auth.js"
import { SessionsRepo } from "../../persistence/SessionsRepo.js"
import { AppConfig } from "../../runtime/Config.js"

export const sessionCookie = "__Host-session"

const digest = (token: string) => createHash("sha256").update(token).digest()

export class Sessions extends Context.Service<Sessions>()("Sessions", {
  make: Effect.gen(function*() {
    const repo = yield* SessionsRepo
    const config = yield* AppConfig
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const idleMillis = Duration.toMillis(config.sessionIdleTimeout)
    // last_seen_at is written at most once a minute (sooner for short idle timeouts), not on every request.
    const touchAfterMillis = Math.min(60_000, idleMillis / 10)

    return {
      /** Starts a session and returns its token, to be set as the cookie. */
      start: Effect.fn("Sessions.start")(function*(userId: UserId, clientAddress: string | null) {
        const token = randomBytes(32).toString("base64url")
        const at = yield* now
        yield* repo.removeExpired(new Date(at.getTime() - idleMillis), at)
        yield* repo.insert({
          tokenHash: digest(token),
          userId,
          clientAddress,
          now: at,
          expiresAt: new Date(at.getTime() + Duration.toMillis(config.sessionMaxAge))
        })
        return token
      }),

      /** The live session of `token`, if any, with its user's role and e-mail; an expired one is deleted. */
      resolve: Effect.fn("Sessions.resolve")(function*(token: string) {
        if (token.length === 0) return Option.none()
        const found = yield* repo.findByTokenHash(digest(token))
        if (Option.isNone(found)) return Option.none()
        const session = found.value
        const at = yield* now
        const idleFor = at.getTime() - session.lastSeenAt.getTime()
        if (session.disabled || session.expiresAt.getTime() <= at.getTime() || idleFor >= idleMillis) {
          yield* repo.remove(session.id)
          return Option.none()
        }
        if (idleFor >= touchAfterMillis) yield* repo.touch(session.id, at)
        return Option.some({
          sessionId: session.id,
          userId: session.userId,
          role: session.role,
          email: session.email
        })
      }),

      end: Effect.fn("Sessions.end")((token: string) =>
        token.length === 0 ? Effect.void : Effect.asVoid(repo.removeByTokenHash(digest(token)))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(SessionsRepo.layer))
}
