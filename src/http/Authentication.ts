import { Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"

import { isCrossSiteChange } from "../api/SameOrigin.js"
import { Authentication, sessionCookie } from "../api/Security.js"
import { CurrentPrincipal, type Principal } from "../domain/Auth.js"
import { Forbidden, Unauthorized } from "../domain/Errors.js"
import { AppConfig } from "../runtime/Config.js"
import { ApiKeys } from "../services/auth/ApiKeys.js"
import { Sessions } from "../services/auth/Sessions.js"

const noCredentials = new Unauthorized({ message: "Missing or invalid credentials" })

/**
 * Both declared schemes (bearer key, session cookie) run this same check of the whole
 * request. The platform tries the schemes in turn and reports the last failure, so a
 * per-scheme check would turn a key check that met a database outage (503) or a cross-site
 * cookie (403) into the other scheme's "no credentials" (401).
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const sessions = yield* Sessions
    const config = yield* AppConfig

    const byApiKey = (key: string) =>
      apiKeys.check(key).pipe(
        Effect.flatMap((check): Effect.Effect<Principal, Unauthorized> => {
          switch (check._tag) {
            case "Valid":
              return Effect.succeed({ method: "apiKey", apiKeyId: check.id, userId: check.createdBy })
            case "Expired":
              return Effect.fail(new Unauthorized({ message: "The API key has expired" }))
            case "Invalid":
              return Effect.fail(noCredentials)
          }
        })
      )

    const bySession = (request: HttpServerRequest.HttpServerRequest, token: string) =>
      Effect.gen(function*() {
        if (isCrossSiteChange(request, config.publicUrl)) {
          return yield* new Forbidden({ message: "Cross-site requests cannot change state with a session cookie" })
        }
        const session = yield* sessions.resolve(token)
        if (Option.isNone(session)) return yield* noCredentials
        return { method: "session", ...session.value } satisfies Principal
      })

    const authenticate = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const authorization = request.headers["authorization"]
      if (authorization !== undefined) {
        const bearer = /^Bearer +(\S+)$/i.exec(authorization)
        return yield* bearer ? byApiKey(bearer[1]!) : noCredentials
      }
      // A missing cookie is an empty value: no credentials.
      const token = request.cookies[sessionCookie.key] ?? ""
      return yield* token.length > 0 ? bySession(request, token) : noCredentials
    })

    const authenticated = <A, E, R>(httpEffect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(authenticate, (principal) => Effect.provideService(httpEffect, CurrentPrincipal, principal))

    return Authentication.of({ apiKey: authenticated, session: authenticated })
  })
).pipe(Layer.provide([ApiKeys.layer, Sessions.layer]))
