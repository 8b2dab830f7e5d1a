import { Effect, Option } from "effect"
import { HttpEffect, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { isCrossSiteChange } from "../api/SameOrigin.js"
import { sessionCookie } from "../api/Security.js"
import { CurrentPrincipal, Me, SignedIn } from "../domain/Auth.js"
import { Forbidden } from "../domain/Errors.js"
import { AppConfig } from "../runtime/Config.js"
import { Administrators } from "../services/auth/Administrators.js"
import { deviceCookie, deviceCookieMaxAge } from "../services/auth/DeviceCookies.js"
import { Sessions } from "../services/auth/Sessions.js"
import { withRetryAfter } from "./RetryAfter.js"

export const AuthHttp = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const administrators = yield* Administrators
    const sessions = yield* Sessions
    const config = yield* AppConfig
    const cookieOptions = { sameSite: "lax", path: "/" } as const

    return handlers
      .handle("signIn", ({ payload }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const client = Option.getOrElse(request.remoteAddress, () => "unknown")
          const signedIn = yield* administrators.signIn(payload, client, request.cookies[deviceCookie])
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, signedIn.token, {
            ...cookieOptions,
            // A Duration: a bare number would be read as milliseconds (Max-Age a thousandth of the setting).
            maxAge: config.sessionMaxAge
          })
          // Outlives sessions and sign-out: it marks the browser, not a session (DeviceCookies).
          yield* HttpEffect.appendPreResponseHandler((_request, response) =>
            Effect.orDie(HttpServerResponse.setCookie(response, deviceCookie, signedIn.deviceCookie, {
              httpOnly: true,
              secure: true,
              sameSite: "strict",
              path: "/",
              maxAge: deviceCookieMaxAge
            }))
          )
          return new SignedIn({ user: signedIn.user })
        }).pipe(withRetryAfter))
      .handle("signOut", () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (isCrossSiteChange(request, config.publicUrl)) {
            return yield* new Forbidden({ message: "Cross-site requests cannot sign out" })
          }
          yield* sessions.end(request.cookies[sessionCookie.key] ?? "")
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, "", { ...cookieOptions, maxAge: 0 })
        }))
      .handle("me", () =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const user = principal.userId === null ? Option.none() : yield* administrators.find(principal.userId)
          return new Me({ user: Option.getOrNull(user), authenticatedBy: principal.method })
        }))
  }))
