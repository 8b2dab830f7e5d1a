import { Effect, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { isCrossSiteChange } from "../api/SameOrigin.js"
import { sessionCookie } from "../api/Security.js"
import { CurrentPrincipal, Me, SignedIn, type User } from "../domain/Auth.js"
import { Forbidden } from "../domain/Errors.js"
import { AppConfig } from "../runtime/Config.js"
import { Administrators } from "../services/auth/Administrators.js"
import { deviceCookie, deviceCookieMaxAge } from "../services/auth/DeviceCookies.js"
import { Sessions } from "../services/auth/Sessions.js"
import { Invitations } from "../services/team/Invitations.js"
import { OwnAccount } from "../services/team/OwnAccount.js"
import { withRetryAfter } from "./RetryAfter.js"

/** The request's client address (behind the trusted proxies), or "unknown". */
const clientAddressOf = Effect.map(
  HttpServerRequest.HttpServerRequest,
  (request) => Option.getOrElse(request.remoteAddress, () => "unknown")
)

/** The browser's device cookie, if any (DeviceCookies). */
const deviceCookieOf = Effect.map(HttpServerRequest.HttpServerRequest, (request) => request.cookies[deviceCookie])

export const AuthHttp = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const administrators = yield* Administrators
    const sessions = yield* Sessions
    const invitations = yield* Invitations
    const ownAccount = yield* OwnAccount
    const config = yield* AppConfig
    const cookieOptions = { sameSite: "lax", path: "/" } as const

    // Outlives sessions and sign-out: it marks the browser, not a session (DeviceCookies).
    const setDeviceCookie = (value: string) =>
      HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.orDie(HttpServerResponse.setCookie(response, deviceCookie, value, {
          httpOnly: true,
          secure: true,
          sameSite: "strict",
          path: "/",
          maxAge: deviceCookieMaxAge
        }))
      )

    /** Answers a new session as `POST /signin` does: its cookie, a new device cookie, and the user. */
    const answerSignedIn = (signedIn: { readonly user: User; readonly token: string; readonly deviceCookie: string }) =>
      Effect.gen(function*() {
        yield* HttpApiBuilder.securitySetCookie(sessionCookie, signedIn.token, {
          ...cookieOptions,
          // A Duration: a bare number would be read as milliseconds (Max-Age a thousandth of the setting).
          maxAge: config.sessionMaxAge
        })
        yield* setDeviceCookie(signedIn.deviceCookie)
        return new SignedIn({ user: signedIn.user })
      })

    const clearSessionCookie = HttpApiBuilder.securitySetCookie(sessionCookie, "", { ...cookieOptions, maxAge: 0 })

    return handlers
      .handle("signIn", ({ payload }) =>
        Effect.gen(function*() {
          const signedIn = yield* administrators.signIn(payload, yield* clientAddressOf, yield* deviceCookieOf)
          return yield* answerSignedIn(signedIn)
        }).pipe(withRetryAfter))
      .handle("signOut", () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (isCrossSiteChange(request, config.publicUrl)) {
            return yield* new Forbidden({ message: "Cross-site requests cannot sign out" })
          }
          yield* sessions.end(request.cookies[sessionCookie.key] ?? "")
          yield* clearSessionCookie
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const user = principal.userId === null ? Option.none() : yield* administrators.find(principal.userId)
          return new Me({
            user: Option.getOrNull(user),
            authenticatedBy: principal.method,
            role: principal.role,
            pageIds: principal.method === "apiKey" ? principal.pageIds : null
          })
        }))
      .handle("changePassword", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const newDeviceCookie = yield* ownAccount.changePassword(
            principal,
            payload,
            yield* clientAddressOf,
            yield* deviceCookieOf
          )
          // The browser that changed it stays a known device: its old cookie no longer verifies.
          yield* setDeviceCookie(newDeviceCookie)
        }).pipe(withRetryAfter))
      .handle("listSessions", () => Effect.flatMap(CurrentPrincipal, (principal) => ownAccount.listSessions(principal)))
      .handle("revokeSession", ({ params }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* ownAccount.revokeSession(principal, params.id)
          if (principal.method === "session" && principal.sessionId === params.id) yield* clearSessionCookie
        }))
      .handle("inspectInvitation", ({ payload }) =>
        Effect.flatMap(clientAddressOf, (client) =>
          invitations.inspect(payload.token, client)).pipe(withRetryAfter))
      .handle("acceptInvitation", ({ payload }) =>
        Effect.gen(function*() {
          const signedIn = yield* invitations.accept(payload, yield* clientAddressOf, yield* deviceCookieOf)
          return yield* answerSignedIn(signedIn)
        }).pipe(withRetryAfter))
  }))
