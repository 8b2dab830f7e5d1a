/**
 * What each member does with their own account: change their password, list their sessions and
 * end one. Changing the password proves the current one as a sign-in does (a wrong one counts
 * as a failed sign-in, so guessing it through a stolen session is throttled), ends every other
 * session of the user, and revokes the device cookies issued before (their signature covers the
 * password hash, DeviceCookies).
 */
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"

import type { Principal } from "../../domain/Auth.js"
import { BadRequest, Forbidden, NotFound } from "../../domain/Errors.js"
import { type ChangePassword, OwnSession } from "../../domain/Team.js"
import { orUnavailable } from "../../persistence/DatabaseErrors.js"
import { RetryingSqlClient } from "../../persistence/RetryingSqlClient.js"
import { SessionsRepo } from "../../persistence/SessionsRepo.js"
import { UsersRepo } from "../../persistence/UsersRepo.js"
import { AppConfig } from "../../runtime/Config.js"
import { AuditTrail, changesBetween } from "../audit/AuditTrail.js"
import { userTarget } from "../auth/Administrators.js"
import { DeviceCookies } from "../auth/DeviceCookies.js"
import { minimumPasswordLength, Passwords } from "../auth/Passwords.js"
import { SignInThrottle } from "../auth/SignInThrottle.js"

/**
 * Your own account is managed from a session only: a key (even one a user made) acts for
 * automation, and must not sign its creator out, see where they signed in from or set their password.
 */
const needsSession = new Forbidden({ message: "Your own account is managed with a session, not an API key" })

const wrongPassword = new Forbidden({ message: "The current password is wrong" })

/** The signed-in user of a session; 403 for an API key. */
const sessionOf = (principal: Principal) =>
  principal.method === "session" ? Effect.succeed(principal) : Effect.fail(needsSession)

export class OwnAccount extends Context.Service<OwnAccount>()("OwnAccount", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const users = yield* UsersRepo
    const sessions = yield* SessionsRepo
    const passwords = yield* Passwords
    const throttle = yield* SignInThrottle
    const devices = yield* DeviceCookies
    const audit = yield* AuditTrail
    const config = yield* AppConfig
    const idleMillis = Duration.toMillis(config.sessionIdleTimeout)
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>) => orUnavailable(sql.withTransaction(effect))

    return {
      /**
       * Sets the signed-in user's new password once the current one is proven, and ends their
       * other sessions. Returns a new device cookie for the browser (its old one no longer verifies).
       */
      changePassword: Effect.fn("OwnAccount.changePassword")(function*(
        principal: Principal,
        input: ChangePassword,
        clientAddress: string,
        deviceCookie: string | undefined
      ) {
        const session = yield* sessionOf(principal)
        if (input.newPassword.length < minimumPasswordLength) {
          return yield* BadRequest.fromIssues([{
            path: ["newPassword"],
            message: `must be at least ${minimumPasswordLength} characters`
          }])
        }
        const found = yield* users.findById(session.userId)
        if (Option.isNone(found)) return yield* needsSession
        const user = found.value
        const device = yield* devices.trustedFor(deviceCookie, user.email)
        const proven = yield* throttle.attempt(
          { email: user.email, clientAddress, device },
          Effect.map(
            passwords.verify(input.currentPassword, user.passwordHash),
            (valid) => valid ? Option.some(user) : Option.none()
          )
        )
        if (Option.isNone(proven)) {
          yield* audit.record({ target: userTarget(user), operation: "auth.signInFailed" })
          return yield* wrongPassword
        }
        const passwordHash = yield* passwords.hash(input.newPassword)
        yield* transaction(Effect.gen(function*() {
          // Only over the hash just proven: a password changed meanwhile is not overwritten unseen.
          if (!(yield* users.replacePassword(user.id, user.passwordHash, passwordHash))) return yield* wrongPassword
          yield* sessions.removeAllOfUser(user.id, session.sessionId)
          yield* audit.record({
            target: userTarget(user),
            changes: changesBetween({ password: user.passwordHash }, { password: passwordHash })
          })
        }))
        return yield* devices.issue({ id: user.id, passwordHash })
      }),

      /** The signed-in user's live sessions, newest first. */
      listSessions: Effect.fn("OwnAccount.listSessions")(function*(principal: Principal) {
        const session = yield* sessionOf(principal)
        const at = yield* Clock.currentTimeMillis
        const rows = yield* sessions.listLive(session.userId, new Date(at), new Date(at - idleMillis))
        const current = session.sessionId
        return rows.map((row) =>
          new OwnSession({
            id: row.id,
            createdAt: row.createdAt.toISOString(),
            lastSeenAt: row.lastSeenAt.toISOString(),
            expiresAt: row.expiresAt.toISOString(),
            clientAddress: row.clientAddress,
            current: row.id === current
          })
        )
      }),

      /** Ends one of the signed-in user's sessions; another user's, or an unknown one, is NotFound. */
      revokeSession: Effect.fn("OwnAccount.revokeSession")((principal: Principal, id: string) =>
        Effect.flatMap(sessionOf(principal), (session) =>
          transaction(Effect.gen(function*() {
            if (!(yield* sessions.removeOfUser(session.userId, id))) {
              return yield* NotFound.of("Session", id)
            }
            yield* audit.record({ target: { type: "session", id, name: null } })
          })))
      )
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      UsersRepo.layer,
      SessionsRepo.layer,
      Passwords.layer,
      SignInThrottle.layer,
      DeviceCookies.layer,
      AuditTrail.layer
    ])
  )
}
