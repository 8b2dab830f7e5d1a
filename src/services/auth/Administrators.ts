/**
 * Administrators: the first one is created at start-up, they sign in with e-mail and
 * password, and an operator can reset a password from the command line. Every sign-in and
 * every failed one leaves an audit entry (a throttled attempt, answered before any check, none).
 */
import { randomBytes } from "node:crypto"

import { Context, Effect, Layer, Option, Redacted } from "effect"

import { type AuditScope, CurrentAuditScope, secretValue } from "../../domain/Audit.js"
import type { SignIn, UserId } from "../../domain/Auth.js"
import { User } from "../../domain/Auth.js"
import { BadRequest, Unauthorized } from "../../domain/Errors.js"
import type { UserRow } from "../../persistence/UsersRepo.js"
import { normalizeEmail, UsersRepo } from "../../persistence/UsersRepo.js"
import { AppConfig } from "../../runtime/Config.js"
import { AuditTrail } from "../audit/AuditTrail.js"
import { DeviceCookies } from "./DeviceCookies.js"
import { minimumPasswordLength, Passwords } from "./Passwords.js"
import { Sessions } from "./Sessions.js"
import { SignInThrottle } from "./SignInThrottle.js"

const invalidCredentials = new Unauthorized({ message: "Invalid email or password" })

export const toUser = (row: UserRow) => new User({ id: row.id, email: row.email, name: row.name, role: row.role })

/** The longest e-mail an audit entry of a failed sign-in keeps of what was typed. */
const maxLoggedEmail = 320

/** The audit scope of an unauthenticated request by `user` (or by whoever typed an unknown e-mail). */
export const userScope = (
  user: { readonly id: UserId | null; readonly email: string },
  clientAddress: string | null,
  operation: string
): AuditScope => ({
  actor: { type: "user", id: user.id, name: user.email },
  clientAddress,
  operation
})

/** The audit target of a user: by id and e-mail. */
export const userTarget = (user: { readonly id: UserId; readonly email: string }) => ({
  type: "user",
  id: user.id,
  name: user.email
})

export const checkPasswordStrength = (password: string) =>
  password.length >= minimumPasswordLength
    ? Effect.void
    : Effect.fail(new BadRequest({ message: `A password needs at least ${minimumPasswordLength} characters` }))

export class Administrators extends Context.Service<Administrators>()("Administrators", {
  make: Effect.gen(function*() {
    const users = yield* UsersRepo
    const passwords = yield* Passwords
    const sessions = yield* Sessions
    const throttle = yield* SignInThrottle
    const devices = yield* DeviceCookies
    const config = yield* AppConfig
    const audit = yield* AuditTrail

    /** Appends a sign-in's entry, outside any transaction: a sign-in changes nothing else to commit with. */
    const recordSignIn = (
      user: { readonly id: UserId | null; readonly email: string },
      clientAddress: string,
      operation: "auth.signIn" | "auth.signInFailed"
    ) =>
      audit.record({
        target: { type: "user", id: user.id, name: user.email }
      }).pipe(Effect.provideService(CurrentAuditScope, userScope(user, clientAddress, operation)))

    /** Creates the first administrator when none exists (docs/authentication.md). */
    const ensureFirstAdministrator = Effect.gen(function*() {
      const email = Option.getOrElse(config.adminEmail, () => "admin@localhost")
      const given = Option.map(config.adminPassword, Redacted.value)
      const password = Option.getOrElse(given, () => randomBytes(18).toString("base64url"))
      if (Option.isSome(given)) yield* Effect.orDie(checkPasswordStrength(password))
      const created = yield* users.insertFirst({
        email,
        name: "Administrator",
        passwordHash: yield* passwords.hash(password)
      })
      if (!created) return
      yield* Option.isSome(given)
        ? Effect.logInfo(`Created the first administrator, ${email}, from ADMIN_EMAIL / ADMIN_PASSWORD`)
        : Effect.logWarning(
          `Created the first administrator. Sign in as ${email} with password ${password} ` +
            "(shown only now; change it with: npm run cli -- admin reset-password --email " + email + ")"
        )
    })
    return {
      ensureFirstAdministrator: () => ensureFirstAdministrator,

      /**
       * Checks the credentials and starts a session; unknown e-mail and wrong password look alike.
       * `deviceCookie` is the browser's device cookie, if any; a new one comes back with the session.
       */
      signIn: Effect.fn("Administrators.signIn")(function*(
        credentials: SignIn,
        clientAddress: string,
        deviceCookie: string | undefined
      ) {
        // Whether the browser is a known device is settled from the cookie alone, and the attempt
        // counted, before the password is hashed (SignInThrottle).
        const device = yield* devices.trustedFor(deviceCookie, credentials.email)
        const signedIn = yield* throttle.attempt(
          { email: credentials.email, clientAddress, device },
          Effect.gen(function*() {
            const user = yield* users.findByEmail(credentials.email)
            // A disabled user's password is hashed all the same: refused after the same work as a
            // wrong password, so the answer's time does not tell that the account is disabled.
            const valid = yield* passwords.verify(
              credentials.password,
              Option.match(user, { onNone: () => passwords.decoy, onSome: (row) => row.passwordHash })
            )
            return Option.filter(user, (row) => valid && row.disabledAt === null)
          })
        )
        if (Option.isNone(signedIn)) {
          const known = yield* users.findByEmail(credentials.email)
          yield* recordSignIn(
            Option.match(known, {
              onNone: () => ({ id: null, email: normalizeEmail(credentials.email).slice(0, maxLoggedEmail) }),
              onSome: (row) => row
            }),
            clientAddress,
            "auth.signInFailed"
          )
          return yield* invalidCredentials
        }
        const user = signedIn.value
        yield* recordSignIn(user, clientAddress, "auth.signIn")
        const token = yield* sessions.start(user.id, clientAddress)
        return { user: toUser(user), token, deviceCookie: yield* devices.issue(user) }
      }),

      find: Effect.fn("Administrators.find")((id: UserId) => users.findById(id).pipe(Effect.map(Option.map(toUser)))),

      /** Sets a new password and ends that user's sessions; false when the e-mail is unknown. */
      resetPassword: Effect.fn("Administrators.resetPassword")(function*(email: string, password: string) {
        yield* checkPasswordStrength(password)
        const passwordHash = yield* passwords.hash(password)
        // With its audit entry (the command line's: src/cli/AdminCommand.ts), never the password.
        return yield* audit.transaction(Effect.gen(function*() {
          const user = yield* users.lockByEmail(email)
          if (Option.isNone(user) || !(yield* users.setPassword(email, passwordHash))) return false
          yield* audit.record({
            target: userTarget(user.value),
            changes: { password: { before: secretValue, after: secretValue } }
          })
          return true
        }))
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(
    Layer.provide([
      UsersRepo.layer,
      Passwords.layer,
      Sessions.layer,
      SignInThrottle.layer,
      DeviceCookies.layer,
      AuditTrail.layer
    ])
  )
}
