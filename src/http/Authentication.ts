import { Context, Effect, Layer, Option } from "effect"
import { HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

import { isCrossSiteChange } from "../api/SameOrigin.js"
import { Authentication, sessionCookie } from "../api/Security.js"
import { TeamApi } from "../api/TeamApi.js"
import { CurrentAuditScope } from "../domain/Audit.js"
import { CurrentPrincipal, type Principal } from "../domain/Auth.js"
import { Forbidden, Unauthorized } from "../domain/Errors.js"
import { atLeast, RequiredRole, SessionOnly } from "../domain/Role.js"
import { AppConfig } from "../runtime/Config.js"
import { actorOf, AuditTrail } from "../services/audit/AuditTrail.js"
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
    const audit = yield* AuditTrail
    const config = yield* AppConfig

    const byApiKey = (key: string) =>
      apiKeys.check(key).pipe(
        Effect.flatMap((check): Effect.Effect<Principal, Unauthorized> => {
          switch (check._tag) {
            case "Valid":
              return Effect.succeed({
                method: "apiKey",
                apiKeyId: check.id,
                userId: check.createdBy,
                role: check.role,
                pageIds: check.pageIds,
                name: check.name
              })
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
        const { email, ...rest } = session.value
        return { method: "session", ...rest, name: email } satisfies Principal
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

    /**
     * Authenticates, then authorizes: a principal below the endpoint's least role (RequiredRole;
     * an endpoint that names none needs an owner), or a key on an endpoint of one's own account
     * (SessionOnly), is refused with 403 before the request is decoded. The writes the handler
     * makes are audited as this principal's, from the request's client address.
     */
    const authenticated = <A, E, R>(
      httpEffect: Effect.Effect<A, E, R>,
      { endpoint, group }: { readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }
    ) =>
      Effect.gen(function*() {
        const principal = yield* authenticate
        const request = yield* HttpServerRequest.HttpServerRequest
        const clientAddress = Option.getOrNull(request.remoteAddress)
        if (principal.method === "apiKey" && clientAddress !== null) {
          yield* audit.keyUsedFrom(principal, clientAddress)
        }
        const needed = Context.getOrElse(endpoint.annotations, RequiredRole, () => "owner" as const)
        if (!atLeast(principal.role, needed)) {
          return yield* new Forbidden({
            message: `This needs the role ${needed} or higher; the ${
              principal.method === "apiKey" ? "API key" : "user"
            } has the role ${principal.role}`
          })
        }
        if (principal.method === "apiKey" && Context.getOption(endpoint.annotations, SessionOnly)._tag === "Some") {
          return yield* new Forbidden({ message: "Your own account is managed with a session, not an API key" })
        }
        // A key limited to some pages must not make what is not limited: a member (by invitation).
        if (principal.method === "apiKey" && principal.pageIds !== null && group.identifier === TeamApi.identifier) {
          return yield* new Forbidden({ message: "An API key limited to some status pages cannot manage the team" })
        }
        return yield* httpEffect.pipe(
          Effect.provideService(CurrentPrincipal, principal),
          Effect.provideService(CurrentAuditScope, {
            actor: actorOf(principal),
            clientAddress,
            operation: `${group.identifier}.${endpoint.identifier}`
          })
        )
      })

    return Authentication.of({ apiKey: authenticated, session: authenticated })
  })
).pipe(Layer.provide([ApiKeys.layer, Sessions.layer, AuditTrail.layer]))
